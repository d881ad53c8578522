//! Showing the jury at work: spinners per judge on a terminal, log groups per tier in GitHub
//! Actions, plain lines when asked to be verbose, nothing when quiet.

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use crate::judges::{Progress, humantime};
use crate::judgment::Status;

fn word(s: Status) -> &'static str {
    match s {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Abstain => "ABSTAIN",
        Status::NotApplicable => "NOT_APPLICABLE",
        Status::Error => "ERROR",
    }
}

/// Spinners on a terminal (standard error), one per running judge.
pub struct TerminalProgress {
    multi: MultiProgress,
    bars: Mutex<HashMap<(String, String), ProgressBar>>,
}

impl TerminalProgress {
    /// A display on standard error.
    pub fn new() -> Self {
        TerminalProgress {
            multi: MultiProgress::new(),
            bars: Mutex::new(HashMap::new()),
        }
    }
}

impl Default for TerminalProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress for TerminalProgress {
    fn started(&self, tier: &str, judge: &str) {
        let style = ProgressStyle::with_template("{spinner} {prefix} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let bar = self.multi.add(ProgressBar::new_spinner().with_style(style));
        bar.set_prefix(format!("[{tier}]"));
        bar.set_message(judge.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        if let Ok(mut m) = self.bars.lock() {
            m.insert((tier.into(), judge.into()), bar);
        }
    }

    fn finished(&self, tier: &str, judge: &str, status: Status, elapsed: Duration) {
        let bar = self
            .bars
            .lock()
            .ok()
            .and_then(|mut m| m.remove(&(tier.to_string(), judge.to_string())));
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        let _ = self.multi.println(format!(
            "[{tier}] {judge}: {} ({})",
            word(status),
            humantime(elapsed)
        ));
    }
}

/// `::group::` per tier in GitHub Actions, one line per finished judge.
#[derive(Default)]
pub struct ActionsProgress {
    current: Mutex<Option<String>>,
}

impl ActionsProgress {
    /// Closes the last group.
    pub fn close(&self) {
        if let Ok(mut c) = self.current.lock()
            && c.take().is_some()
        {
            let _ = writeln!(std::io::stderr(), "::endgroup::");
        }
    }
}

impl Progress for ActionsProgress {
    fn started(&self, tier: &str, judge: &str) {
        if let Ok(mut c) = self.current.lock()
            && c.as_deref() != Some(tier)
        {
            let mut err = std::io::stderr();
            if c.is_some() {
                let _ = writeln!(err, "::endgroup::");
            }
            let _ = writeln!(err, "::group::judge-ci tier {tier}");
            *c = Some(tier.to_string());
        }
        let _ = writeln!(std::io::stderr(), "{judge}: started");
    }

    fn finished(&self, _tier: &str, judge: &str, status: Status, elapsed: Duration) {
        let _ = writeln!(
            std::io::stderr(),
            "{judge}: {} ({})",
            word(status),
            humantime(elapsed)
        );
    }
}

/// Plain lines on standard error.
pub struct LogProgress;

impl Progress for LogProgress {
    fn started(&self, tier: &str, judge: &str) {
        let _ = writeln!(std::io::stderr(), "[{tier}] {judge}: started");
    }

    fn finished(&self, tier: &str, judge: &str, status: Status, elapsed: Duration) {
        let _ = writeln!(
            std::io::stderr(),
            "[{tier}] {judge}: {} ({})",
            word(status),
            humantime(elapsed)
        );
    }
}

/// Passes events on and remembers which judges finished, for the report of a cancelled run.
pub struct Recording {
    inner: std::sync::Arc<dyn Progress>,
    done: Mutex<Vec<(String, String, Status, Duration)>>,
}

impl Recording {
    /// Records what passes through to `inner`.
    pub fn new(inner: std::sync::Arc<dyn Progress>) -> Self {
        Recording {
            inner,
            done: Mutex::new(Vec::new()),
        }
    }

    /// The judges that finished so far: (tier, judge, status, time).
    pub fn finished_so_far(&self) -> Vec<(String, String, Status, Duration)> {
        self.done.lock().map(|d| d.clone()).unwrap_or_default()
    }
}

impl Progress for Recording {
    fn started(&self, tier: &str, judge: &str) {
        self.inner.started(tier, judge);
    }

    fn finished(&self, tier: &str, judge: &str, status: Status, elapsed: Duration) {
        if let Ok(mut d) = self.done.lock() {
            d.push((tier.into(), judge.into(), status, elapsed));
        }
        self.inner.finished(tier, judge, status, elapsed);
    }
}

/// The status word of a judgment (PASS, FAIL…), for logs and the cancelled report.
pub fn status_word(s: Status) -> &'static str {
    word(s)
}
