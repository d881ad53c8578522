//! Execution limits of one top-level composite vote (jury-semantics §6.4): nesting depth and
//! total child invocations, shared by every composite below the top.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::judgment::Fault;

use super::verdict::{MAX_COMPOSITE_DEPTH, MAX_COMPOSITE_INVOCATIONS};

/// The limits of one vote. A composite jury calls [`VoteScope::child`] before each child jury;
/// exceeding a limit is a [`Fault::LimitExceeded`], which no jury contains.
#[derive(Clone, Debug)]
pub struct VoteScope {
    depth: usize,
    invocations: Arc<AtomicUsize>,
}

impl Default for VoteScope {
    fn default() -> Self {
        VoteScope::new()
    }
}

impl VoteScope {
    /// A fresh scope for a top-level vote.
    pub fn new() -> Self {
        VoteScope {
            depth: 0,
            invocations: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The scope of a child jury about to be invoked, counted against both limits.
    pub fn child(&self) -> Result<VoteScope, Fault> {
        let depth = self.depth + 1;
        if depth > MAX_COMPOSITE_DEPTH {
            return Err(Fault::LimitExceeded(format!(
                "composite nesting depth {depth} exceeds {MAX_COMPOSITE_DEPTH}"
            )));
        }
        let n = self.invocations.fetch_add(1, Ordering::SeqCst) + 1;
        if n > MAX_COMPOSITE_INVOCATIONS {
            return Err(Fault::LimitExceeded(format!(
                "{n} child jury invocations exceed {MAX_COMPOSITE_INVOCATIONS}"
            )));
        }
        Ok(VoteScope {
            depth,
            invocations: Arc::clone(&self.invocations),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_and_invocation_limits() {
        let mut s = VoteScope::new();
        for _ in 0..MAX_COMPOSITE_DEPTH {
            s = s.child().unwrap();
        }
        assert!(matches!(s.child(), Err(Fault::LimitExceeded(_))));
        let top = VoteScope::new();
        for _ in 0..MAX_COMPOSITE_INVOCATIONS {
            top.child().unwrap();
        }
        assert!(matches!(top.child(), Err(Fault::LimitExceeded(_))));
    }
}
