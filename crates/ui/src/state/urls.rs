//! URL helpers over the workspace's one origin parser ([`Origin`]): the origin of a URL, and
//! whether a URL is a web page.

use panelot_protocol::Origin;
use panelot_protocol::Scheme;

/// `scheme://host[:port]` of an http(s) URL, as host permissions and the engine spell it (the
/// host lowercased, a default port left out): the host permission a connection needs, the
/// origin of an attached page. `None` for anything else.
pub fn origin_of(url: &str) -> Option<String> {
    Origin::parse(url).ok().filter(Origin::is_web).map(|origin| origin.to_string())
}

/// Whether `url` is a web page (`http:`, `https:` or `file:`): the pages the agent can act on.
/// Extension pages (Panelot's own included), `chrome:` and `about:` pages are not.
pub fn is_web_url(url: &str) -> bool {
    Origin::parse(url).is_ok_and(|origin| origin.is_web() || origin.scheme == Scheme::File)
}

#[cfg(test)]
#[path = "urls_tests.rs"]
mod tests;
