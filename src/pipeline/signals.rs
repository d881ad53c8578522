//! Signals: SIGTERM (the Actions "Cancel") and SIGINT stop a run.

/// Resolves when SIGTERM or SIGINT arrives (never, if the handlers cannot be installed).
pub async fn cancellation() -> (&'static str, i32) {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => tokio::select! {
            _ = term.recv() => ("SIGTERM", 15),
            _ = int.recv() => ("SIGINT", 2),
        },
        _ => std::future::pending().await,
    }
}
