//! What every HTTP client here shares: reading a server's "come back later" headers
//! (`retry-after` in seconds or as a date, `x-ratelimit-reset` when nothing remains).

use std::time::Duration;

use http::HeaderMap;

/// How long the server asks the client to wait, when it says.
pub fn retry_wait(headers: &HeaderMap) -> Option<Duration> {
    let get = |k: &str| headers.get(k).and_then(|v| v.to_str().ok());
    if let Some(v) = get("retry-after") {
        if let Ok(secs) = v.trim().parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        if let Ok(when) = jiff::fmt::rfc2822::parse(v.trim()) {
            let secs = when.timestamp().as_second() - jiff::Timestamp::now().as_second();
            return Some(Duration::from_secs(secs.max(0) as u64));
        }
    }
    if get("x-ratelimit-remaining") == Some("0")
        && let Some(reset) = get("x-ratelimit-reset").and_then(|v| v.parse::<i64>().ok())
    {
        let secs = reset - jiff::Timestamp::now().as_second();
        return Some(Duration::from_secs(secs.max(0) as u64 + 1));
    }
    None
}

/// The first wait of a backoff that doubles per attempt (attempt 1 waits `base`).
pub fn backoff(base: Duration, attempt: u32) -> Duration {
    base * 2u32.saturating_pow(attempt.saturating_sub(1))
}

/// An error and every cause below it, as one line.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(err) = cur {
        let s = err.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
        cur = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn server_hints() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_wait(&h), None);
        h.insert("retry-after", HeaderValue::from_static("7"));
        assert_eq!(retry_wait(&h), Some(Duration::from_secs(7)));
        let mut h = HeaderMap::new();
        h.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        let reset = jiff::Timestamp::now().as_second() + 30;
        h.insert(
            "x-ratelimit-reset",
            HeaderValue::from_str(&reset.to_string()).unwrap(),
        );
        let w = retry_wait(&h).unwrap();
        assert!(w >= Duration::from_secs(29) && w <= Duration::from_secs(32));
        assert_eq!(backoff(Duration::from_secs(1), 3), Duration::from_secs(4));
    }
}
