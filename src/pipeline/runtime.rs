//! The async runtime of one command, which ends without waiting for a stuck judge thread
//! (trust.md point 24). A judge's blocking work (file reads, parsing) runs on tokio's blocking
//! threads within the check's time limit; when the limit fires, the judgment is an ERROR and
//! the run goes on, but the thread itself cannot be stopped. Dropping a plain tokio runtime
//! waits for every blocking thread, so one thread stuck for ever (a read the kernel never
//! completes) kept judge-ci from exiting after its verdict and surfaces were written, and the
//! gate never got an exit code. This runtime waits at most [`LINGER`], then leaves such
//! threads to die with the process.

use std::future::Future;
use std::time::Duration;

/// How long ending the runtime waits for blocking threads still running.
pub const LINGER: Duration = Duration::from_secs(2);

/// A multi-threaded tokio runtime whose end never waits longer than [`LINGER`].
#[derive(Debug)]
pub struct Runtime(Option<tokio::runtime::Runtime>);

impl Runtime {
    /// A multi-threaded runtime with every driver enabled.
    pub fn new() -> std::io::Result<Runtime> {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map(|rt| Runtime(Some(rt)))
    }

    /// Runs `future` to completion on the runtime.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        match &self.0 {
            Some(rt) => rt.block_on(future),
            // Only `drop` takes the runtime, and nothing runs after it.
            None => unreachable!("the runtime is only taken when dropped"),
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_timeout(LINGER);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blocking thread that never ends (a judge stuck past its time limit) does not keep
    /// the runtime from ending: its drop returns. (With tokio's own drop it never does; the
    /// bound below only tells a hang from an end, it measures no speed.)
    #[test]
    fn a_stuck_blocking_thread_does_not_keep_the_runtime_from_ending() {
        let (done, ended) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = Runtime::new().unwrap();
            let timed_out = rt.block_on(async {
                let stuck = tokio::task::spawn_blocking(|| {
                    loop {
                        std::thread::park();
                    }
                });
                tokio::time::timeout(Duration::from_millis(50), stuck)
                    .await
                    .is_err()
            });
            drop(rt);
            let _ = done.send(timed_out);
        });
        assert_eq!(ended.recv_timeout(Duration::from_secs(120)), Ok(true));
    }
}
