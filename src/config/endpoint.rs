//! What a config may point the LLM judges at (trust.md point 3): the API key is read only
//! from a variable whose name ends in `_API_KEY` (or one the workflow allows with
//! `--allow-key-env`, never the config), so `api-key-env: GITHUB_TOKEN` cannot send the job's
//! token as a key; and a `base-url` off this machine must be https, so a key never travels in
//! clear text.

use std::sync::OnceLock;

/// Variable names the command line allowed as `api-key-env` besides `*_API_KEY`. Set once, by
/// `main`, before any config is read, and never changed: it is the command line's, the same
/// for every run of the process (the tasks of a suite share one command line), not run state.
static ALLOWED_KEY_ENV: OnceLock<Vec<String>> = OnceLock::new();

/// Why the allowance could not be set: it was set already (it is set once per process).
#[derive(Debug, thiserror::Error)]
#[error("the variables allowed as api-key-env were set already; they are set once per process")]
pub struct AlreadyAllowed;

/// Allows `names` as `api-key-env`s (`--allow-key-env NAME`, the Action input
/// `allow-key-env`). Called once by `main` before the config is loaded; the config cannot.
pub fn allow_key_envs(names: &[String]) -> Result<(), AlreadyAllowed> {
    ALLOWED_KEY_ENV
        .set(names.to_vec())
        .map_err(|_| AlreadyAllowed)
}

/// Whether `name` may hold an API key: it ends in `_API_KEY`, or the command line allowed it.
pub fn key_env_allowed(name: &str) -> bool {
    name.ends_with("_API_KEY")
        || ALLOWED_KEY_ENV
            .get()
            .is_some_and(|all| all.iter().any(|n| n == name))
}

/// Why `name` may not be an `api-key-env`, with what would be valid.
pub fn key_env_refusal(name: &str) -> String {
    format!(
        "api-key-env {name} does not end in _API_KEY; judge-ci reads API keys only from such variables (so a config cannot send GITHUB_TOKEN or another secret as a key). Rename the variable (for example MY_PROVIDER_API_KEY), or allow it from the workflow with --allow-key-env {name} (Action input allow-key-env)"
    )
}

/// Whether `host` is this machine: `localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Why a `base-url` is refused, with what would be valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaseUrlError {
    /// Not a URL at all.
    #[error("base-url {base:?} is not a URL ({source}); for example https://api.openai.com/v1")]
    NotUrl {
        /// The text as written.
        base: String,
        /// The URL parser's reason.
        #[source]
        source: url::ParseError,
    },
    /// Plain http to a host that is not this machine.
    #[error(
        "base-url {base} is plain http to another machine; the API key and the pull request's material would travel in clear text. Use https:// (http:// is allowed only for localhost, 127.0.0.1 or ::1)"
    )]
    PlainHttp {
        /// The URL as written.
        base: String,
    },
    /// A scheme other than http(s).
    #[error("base-url {base} uses {scheme}://; it must be https:// (or http:// to localhost)")]
    Scheme {
        /// The URL as written.
        base: String,
        /// Its scheme.
        scheme: String,
    },
}

/// Refuses a base URL that is not http(s), or is plain http to another machine.
pub fn check_base_url(base: &str) -> Result<(), BaseUrlError> {
    let url = url::Url::parse(base).map_err(|source| BaseUrlError::NotUrl {
        base: base.to_string(),
        source,
    })?;
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&url) => Ok(()),
        "http" => Err(BaseUrlError::PlainHttp {
            base: base.to_string(),
        }),
        other => Err(BaseUrlError::Scheme {
            base: base.to_string(),
            scheme: other.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_env_names() {
        assert!(key_env_allowed("ANTHROPIC_API_KEY"));
        assert!(!key_env_allowed("GITHUB_TOKEN"));
        assert!(!key_env_allowed("SOME_KEY_FOR_TESTS_ONLY"));
        allow_key_envs(&["SOME_KEY_FOR_TESTS_ONLY".into()]).unwrap();
        assert!(key_env_allowed("SOME_KEY_FOR_TESTS_ONLY"));
        assert!(
            matches!(allow_key_envs(&["OTHER".into()]), Err(AlreadyAllowed)),
            "set once"
        );
        assert!(!key_env_allowed("OTHER"));
        assert!(key_env_refusal("GITHUB_TOKEN").contains("--allow-key-env GITHUB_TOKEN"));
    }

    #[test]
    fn base_urls() {
        assert!(check_base_url("https://api.example.com/v1").is_ok());
        assert!(check_base_url("http://localhost:11434/v1").is_ok());
        assert!(check_base_url("http://127.0.0.2:8080").is_ok());
        assert!(check_base_url("http://[::1]:8080/v1").is_ok());
        for plain in [
            "http://attacker.example/v1",
            "http://10.0.0.1/v1",
            "http://localhost.attacker.example/v1",
        ] {
            assert!(
                matches!(check_base_url(plain), Err(BaseUrlError::PlainHttp { .. })),
                "{plain}"
            );
        }
        assert_eq!(
            check_base_url("ftp://localhost/v1"),
            Err(BaseUrlError::Scheme {
                base: "ftp://localhost/v1".into(),
                scheme: "ftp".into()
            })
        );
        assert!(matches!(
            check_base_url("api.example.com"),
            Err(BaseUrlError::NotUrl { .. })
        ));
    }
}
