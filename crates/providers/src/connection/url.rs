//! Base URL normalization: trailing slashes removed, `https://` assumed when no scheme is given,
//! plain HTTP only on loopback.

use std::fmt;

/// A normalized base URL: `https://host[:port][/path]` or `http://` on loopback, no trailing
/// slash, no query, fragment or credentials.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct BaseUrl(String);

/// Why a base URL was refused. Never echoes the URL (it may carry credentials).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Nothing was typed.
    #[error("the URL is empty")]
    Empty,
    /// A scheme other than `http` or `https`.
    #[error("only http and https URLs are supported")]
    UnsupportedScheme,
    /// No host.
    #[error("the URL has no host")]
    MissingHost,
    /// Plain HTTP to a host that is not this machine.
    #[error("remote endpoints must use https (http is allowed for localhost only)")]
    InsecureRemote,
    /// `user:password@` in the URL: keys belong in the key field, where they are sealed.
    #[error("credentials in the URL are not allowed; put the key in the key field")]
    Credentials,
    /// `?…` or `#…`.
    #[error("a base URL cannot have a query or fragment")]
    QueryOrFragment,
    /// Spaces, control characters or a malformed host or port.
    #[error("the URL is malformed")]
    Malformed,
}

impl BaseUrl {
    /// Normalizes what a user typed.
    pub fn parse(input: &str) -> Result<BaseUrl, UrlError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(UrlError::Empty);
        }
        if input.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(UrlError::Malformed);
        }
        let (scheme, rest) = match input.split_once("://") {
            Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
            None => ("https".to_owned(), input),
        };
        if scheme != "http" && scheme != "https" {
            return Err(UrlError::UnsupportedScheme);
        }
        if rest.contains(['?', '#']) {
            return Err(UrlError::QueryOrFragment);
        }
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.contains('@') {
            return Err(UrlError::Credentials);
        }
        let host = host_of(authority)?.to_ascii_lowercase();
        if scheme == "http" && !is_loopback(&host) {
            return Err(UrlError::InsecureRemote);
        }
        let path = path.trim_end_matches('/');
        let authority = authority.to_ascii_lowercase();
        Ok(BaseUrl(format!("{scheme}://{authority}{path}")))
    }

    /// The URL as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the host is this machine (`localhost`, `127.0.0.0/8`, `[::1]`).
    pub fn is_loopback(&self) -> bool {
        let rest = self.0.split_once("://").map_or(self.0.as_str(), |(_, rest)| rest);
        let authority = rest.split('/').next().unwrap_or_default();
        host_of(authority).is_ok_and(is_loopback)
    }

    /// Whether a path segment is a version (`/v1`, `/v4`, `/api/v1/…`).
    pub(crate) fn has_version_segment(&self) -> bool {
        let rest = self.0.split_once("://").map_or(self.0.as_str(), |(_, rest)| rest);
        rest.split('/').skip(1).any(|segment| {
            segment.len() >= 2
                && segment.starts_with('v')
                && segment[1..].bytes().all(|b| b.is_ascii_digit())
        })
    }
}

/// The host of an authority (`host[:port]`, `[v6][:port]`), checked.
fn host_of(authority: &str) -> Result<&str, UrlError> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or(UrlError::Malformed)?;
        if !host.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') {
            return Err(UrlError::Malformed);
        }
        let port = match after {
            "" => None,
            after => Some(after.strip_prefix(':').ok_or(UrlError::Malformed)?),
        };
        (host, port)
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(UrlError::MissingHost);
    }
    if !authority.starts_with('[')
        && !host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
    {
        return Err(UrlError::Malformed);
    }
    if let Some(port) = port
        && (port.is_empty() || port.parse::<u16>().is_err())
    {
        return Err(UrlError::Malformed);
    }
    Ok(host)
}

fn is_loopback(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

impl From<BaseUrl> for String {
    fn from(url: BaseUrl) -> String {
        url.0
    }
}

impl TryFrom<String> for BaseUrl {
    type Error = UrlError;

    fn try_from(stored: String) -> Result<BaseUrl, UrlError> {
        BaseUrl::parse(&stored)
    }
}

impl fmt::Debug for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BaseUrl").field(&self.0).finish()
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
