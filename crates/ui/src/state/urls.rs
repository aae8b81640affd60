//! URL helpers: the origin of a URL, and whether a URL is a web page.

/// `scheme://host[:port]` of a URL: the host permission a connection needs, the origin of an
/// attached page.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().filter(|h| !h.is_empty())?;
    Some(format!("{}://{}", scheme.to_ascii_lowercase(), host.to_ascii_lowercase()))
}

/// Whether `url` is a web page (`http:`, `https:` or `file:`): the pages the agent can act on.
/// Extension pages (Panelot's own included), `chrome:` and `about:` pages are not.
pub fn is_web_url(url: &str) -> bool {
    let Some((scheme, _)) = url.split_once(':') else { return false };
    ["http", "https", "file"].iter().any(|web| scheme.eq_ignore_ascii_case(web))
}

#[cfg(test)]
#[path = "urls_tests.rs"]
mod tests;
