//! URL helpers: the origin of a URL.

/// `scheme://host[:port]` of a URL: the host permission a connection needs, the origin of an
/// attached page.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().filter(|h| !h.is_empty())?;
    Some(format!("{}://{}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase()))
}

#[cfg(test)]
#[path = "urls_tests.rs"]
mod tests;
