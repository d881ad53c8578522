//! Spending limits (`llm.limits` for a run; `judge-ci suite --llm-limit` over a whole suite):
//! requests, input tokens, output tokens and cost. Before a request is sent its spending is
//! estimated from the rendered prompt (input tokens as the prompt's bytes over three, which
//! overestimates English and code for the tokenizers in use; output tokens as the request's
//! `max-output-tokens`, the most it can spend) and reserved in every budget it counts
//! against; a request whose reservation would pass a limit is not sent. When the reply
//! comes, the reservation is corrected to the usage the provider reported (a request that
//! got no reply keeps its request and drops its tokens). Reservations are made under each
//! budget's lock, so requests in flight at once (the concurrent judges of a run, the
//! concurrent tasks of a suite) can never together pass a limit. Cached replies cost nothing.

use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::config::llm::{Limits, Price};

/// What a budget counts against: the run's `llm.limits` or the suite's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One run (`llm.limits` of its config).
    Run,
    /// A whole `judge-ci suite` (its `--llm-limit` flags).
    Suite,
}

impl Scope {
    /// Where the limit is set, for messages.
    pub fn place(self) -> &'static str {
        match self {
            Scope::Run => "llm.limits",
            Scope::Suite => "the suite's --llm-limit",
        }
    }
}

/// One limited quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quantity {
    /// Requests sent.
    Requests,
    /// Input tokens.
    InputTokens,
    /// Output tokens.
    OutputTokens,
    /// Cost in US dollars.
    CostUsd,
}

impl Quantity {
    /// The config key.
    pub fn key(self) -> &'static str {
        match self {
            Quantity::Requests => "requests",
            Quantity::InputTokens => "input-tokens",
            Quantity::OutputTokens => "output-tokens",
            Quantity::CostUsd => "cost-usd",
        }
    }
}

/// What a budget has spent (reservations of requests in flight included).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spent {
    /// Requests.
    pub requests: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cost in US dollars.
    pub cost_usd: f64,
}

/// One request's spending: estimated before, reported after.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// US dollars, when the model has a price.
    pub cost_usd: Option<f64>,
}

impl Cost {
    /// The estimate for a prompt of `prompt_bytes` bytes allowed `max_output` tokens.
    pub fn estimate(prompt_bytes: usize, max_output: u32, price: Option<Price>) -> Cost {
        Cost::of(
            (prompt_bytes as u64).div_ceil(3),
            u64::from(max_output),
            price,
        )
    }

    /// The cost of `input` and `output` tokens at `price`.
    pub fn of(input: u64, output: u64, price: Option<Price>) -> Cost {
        Cost {
            input_tokens: input,
            output_tokens: output,
            cost_usd: price
                .map(|p| (input as f64 * p.input + output as f64 * p.output) / 1_000_000.0),
        }
    }
}

/// Why a request was not sent.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// It would have passed a limit.
    #[error(
        "the request would pass {place}.{key} ({limit}): {spent} spent before it, {need} more for it{estimated}"
    )]
    Exhausted {
        /// Where the limit is set.
        place: &'static str,
        /// Which limit.
        key: &'static str,
        /// The limit.
        limit: String,
        /// What was spent before this request.
        spent: String,
        /// What this request would spend.
        need: String,
        /// ", estimated" when `need` is an estimate.
        estimated: &'static str,
    },
    /// A cost limit is set but the model has no price, so the cost cannot be bounded.
    #[error(
        "{place}.cost-usd is set, but the model {model} has no price in llm.prices, so the request's cost cannot be bounded"
    )]
    NoPrice {
        /// Where the limit is set.
        place: &'static str,
        /// The model.
        model: String,
    },
}

impl Refusal {
    /// What the user can do about it.
    pub fn help(&self) -> String {
        match self {
            Refusal::Exhausted { place, key, .. } => format!(
                "raise {place}.{key}, or ask fewer or smaller questions (fewer samples or criteria, a smaller change); cached answers cost nothing"
            ),
            Refusal::NoPrice { place, model } => format!(
                "{place}.cost-usd needs a price for {model}: add llm.prices.{model}: {{input: USD per million input tokens, output: USD per million output tokens}}"
            ),
        }
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} in, {} out", self.input_tokens, self.output_tokens)
    }
}

/// One budget: its limits and what has been spent against them.
#[derive(Debug)]
pub struct Budget {
    scope: Scope,
    limits: Limits,
    spent: Mutex<Spent>,
}

/// A reservation held in one budget until the request's usage is known.
#[derive(Debug)]
pub struct Held {
    budget: Arc<Budget>,
    cost: Cost,
}

impl Budget {
    /// A budget of `limits` for `scope`.
    pub fn new(scope: Scope, limits: Limits) -> Budget {
        Budget {
            scope,
            limits,
            spent: Mutex::new(Spent::default()),
        }
    }

    /// The scope.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// What has been spent so far.
    pub fn spent(&self) -> Spent {
        self.spent.lock().map(|s| *s).unwrap_or_default()
    }

    /// Reserves one request of `cost` (to `model`), or says which limit it would pass.
    fn reserve_one(self: &Arc<Self>, cost: Cost, model: &str) -> Result<Held, Refusal> {
        let place = self.scope.place();
        if self.limits.cost_usd.is_some() && cost.cost_usd.is_none() {
            return Err(Refusal::NoPrice {
                place,
                model: model.to_string(),
            });
        }
        let mut s = self
            .spent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let over = |key: &'static str, limit: String, spent: String, need: String, est| {
            Err(Refusal::Exhausted {
                place,
                key,
                limit,
                spent,
                need,
                estimated: est,
            })
        };
        if let Some(l) = self.limits.requests
            && s.requests + 1 > l
        {
            return over(
                "requests",
                l.to_string(),
                s.requests.to_string(),
                "1".into(),
                "",
            );
        }
        if let Some(l) = self.limits.input_tokens
            && s.input_tokens + cost.input_tokens > l
        {
            return over(
                "input-tokens",
                l.to_string(),
                s.input_tokens.to_string(),
                cost.input_tokens.to_string(),
                ", estimated from the prompt",
            );
        }
        if let Some(l) = self.limits.output_tokens
            && s.output_tokens + cost.output_tokens > l
        {
            return over(
                "output-tokens",
                l.to_string(),
                s.output_tokens.to_string(),
                cost.output_tokens.to_string(),
                ", its max-output-tokens",
            );
        }
        if let (Some(l), Some(c)) = (self.limits.cost_usd, cost.cost_usd)
            && s.cost_usd + c > l + 1e-12
        {
            return over(
                "cost-usd",
                format!("${l}"),
                format!("${:.6}", s.cost_usd),
                format!("${c:.6}"),
                ", estimated",
            );
        }
        s.requests += 1;
        s.input_tokens += cost.input_tokens;
        s.output_tokens += cost.output_tokens;
        s.cost_usd += cost.cost_usd.unwrap_or(0.0);
        Ok(Held {
            budget: Arc::clone(self),
            cost,
        })
    }

    /// Reserves one request of `cost` in every budget of `all`, or in none: the first limit
    /// it would pass is the refusal.
    pub fn reserve(all: &[Arc<Budget>], cost: Cost, model: &str) -> Result<Vec<Held>, Refusal> {
        let mut held = Vec::new();
        for b in all {
            match b.reserve_one(cost, model) {
                Ok(h) => held.push(h),
                Err(r) => {
                    for h in held {
                        h.release();
                    }
                    return Err(r);
                }
            }
        }
        Ok(held)
    }
}

impl Held {
    /// Corrects the reservation to what the request really spent (`None`: no reply, so no
    /// tokens; the request stays counted).
    pub fn settle(self, actual: Option<Cost>) {
        let actual = actual.unwrap_or_default();
        if let Ok(mut s) = self.budget.spent.lock() {
            s.input_tokens = s.input_tokens - self.cost.input_tokens + actual.input_tokens;
            s.output_tokens = s.output_tokens - self.cost.output_tokens + actual.output_tokens;
            s.cost_usd = (s.cost_usd - self.cost.cost_usd.unwrap_or(0.0)
                + actual.cost_usd.unwrap_or(0.0))
            .max(0.0);
        }
    }

    /// Gives the reservation back whole (the request was not sent).
    fn release(self) {
        if let Ok(mut s) = self.budget.spent.lock() {
            s.requests -= 1;
            s.input_tokens -= self.cost.input_tokens;
            s.output_tokens -= self.cost.output_tokens;
            s.cost_usd = (s.cost_usd - self.cost.cost_usd.unwrap_or(0.0)).max(0.0);
        }
    }
}

/// What a budget's limits and spending look like in the report.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitUse {
    /// `run` or `suite`.
    pub scope: String,
    /// The limited quantity's key (`requests`, `input-tokens`, `output-tokens`, `cost-usd`).
    pub quantity: String,
    /// The limit.
    pub limit: f64,
    /// What was spent against it (for a suite's budget: by every task so far).
    pub spent: f64,
}

impl Budget {
    /// One row per limit set.
    pub fn uses(&self) -> Vec<LimitUse> {
        let s = self.spent();
        let scope = match self.scope {
            Scope::Run => "run",
            Scope::Suite => "suite",
        };
        let row = |q: Quantity, limit: f64, spent: f64| LimitUse {
            scope: scope.into(),
            quantity: q.key().into(),
            limit,
            spent,
        };
        let mut out = Vec::new();
        if let Some(l) = self.limits.requests {
            out.push(row(Quantity::Requests, l as f64, s.requests as f64));
        }
        if let Some(l) = self.limits.input_tokens {
            out.push(row(Quantity::InputTokens, l as f64, s.input_tokens as f64));
        }
        if let Some(l) = self.limits.output_tokens {
            out.push(row(
                Quantity::OutputTokens,
                l as f64,
                s.output_tokens as f64,
            ));
        }
        if let Some(l) = self.limits.cost_usd {
            out.push(row(Quantity::CostUsd, l, (s.cost_usd * 1e6).round() / 1e6));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(l: Limits) -> Arc<Budget> {
        Arc::new(Budget::new(Scope::Run, l))
    }

    #[test]
    fn each_limit_refuses_the_request_that_would_pass_it() {
        let c = Cost::of(100, 50, None);
        let b = budget(Limits {
            requests: Some(2),
            ..Limits::default()
        });
        let h1 = Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap();
        let _h2 = Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap();
        let e = Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("the request would pass llm.limits.requests (2): 2 spent"),
            "{e}"
        );
        // A settled request still counts.
        for h in h1 {
            h.settle(None);
        }
        assert!(matches!(
            Budget::reserve(std::slice::from_ref(&b), c, "m"),
            Err(Refusal::Exhausted {
                key: "requests",
                ..
            })
        ));

        let b = budget(Limits {
            input_tokens: Some(250),
            ..Limits::default()
        });
        let held = Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap();
        Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap();
        let e = Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap_err();
        assert!(e.to_string().contains("llm.limits.input-tokens (250): 200 spent before it, 100 more for it, estimated from the prompt"), "{e}");
        // Corrected to the reported usage (40 of the estimated 100), the next one fits.
        for h in held {
            h.settle(Some(Cost::of(40, 10, None)));
        }
        assert_eq!(b.spent().input_tokens, 140);
        Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap();

        let b = budget(Limits {
            output_tokens: Some(99),
            ..Limits::default()
        });
        Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap();
        let e = Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap_err();
        assert!(
            e.to_string()
                .contains("output-tokens (99): 50 spent before it, 50 more"),
            "{e}"
        );
        Budget::reserve(std::slice::from_ref(&b), Cost::of(1, 49, None), "m").unwrap();

        let price = Price {
            input: 3.0,
            output: 15.0,
        };
        let b = budget(Limits {
            cost_usd: Some(0.001),
            ..Limits::default()
        });
        // 100 × 3 + 50 × 15 = 1050 µ$ per million → $0.00105 > $0.001.
        let e = Budget::reserve(
            std::slice::from_ref(&b),
            Cost::of(100, 50, Some(price)),
            "m",
        )
        .unwrap_err();
        assert!(e.to_string().contains("cost-usd ($0.001)"), "{e}");
        Budget::reserve(
            std::slice::from_ref(&b),
            Cost::of(100, 40, Some(price)),
            "m",
        )
        .unwrap();
        let e = Budget::reserve(std::slice::from_ref(&b), c, "m").unwrap_err();
        assert_eq!(
            e,
            Refusal::NoPrice {
                place: "llm.limits",
                model: "m".into()
            }
        );
    }

    #[test]
    fn a_request_is_reserved_in_every_budget_or_in_none() {
        let run = budget(Limits {
            requests: Some(5),
            ..Limits::default()
        });
        let suite = Arc::new(Budget::new(
            Scope::Suite,
            Limits {
                requests: Some(1),
                ..Limits::default()
            },
        ));
        let c = Cost::of(1, 1, None);
        Budget::reserve(&[run.clone(), suite.clone()], c, "m").unwrap();
        let e = Budget::reserve(&[run.clone(), suite.clone()], c, "m").unwrap_err();
        assert!(
            e.to_string().contains("the suite's --llm-limit.requests"),
            "{e}"
        );
        assert_eq!(
            run.spent().requests,
            1,
            "the run's reservation was given back"
        );
        assert_eq!(
            run.uses(),
            vec![LimitUse {
                scope: "run".into(),
                quantity: "requests".into(),
                limit: 5.0,
                spent: 1.0
            }]
        );
    }

    #[test]
    fn concurrent_requests_never_pass_a_limit_together() {
        let b = budget(Limits {
            requests: Some(10),
            ..Limits::default()
        });
        let granted = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..5 {
                        if Budget::reserve(std::slice::from_ref(&b), Cost::default(), "m").is_ok() {
                            granted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        assert_eq!(granted.into_inner(), 10);
        assert_eq!(b.spent().requests, 10);
    }

    #[test]
    fn the_estimate_rounds_up_and_counts_the_whole_output_allowance() {
        assert_eq!(Cost::estimate(10, 64, None), Cost::of(4, 64, None));
        assert_eq!(Cost::estimate(9, 64, None).input_tokens, 3);
    }
}
