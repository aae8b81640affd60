//! Tests of the urls module.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn a_connection_needs_access_to_its_origin_only() {
    assert_eq!(
        origin_of("https://API.example.com/v1/").as_deref(),
        Some("https://api.example.com")
    );
    assert_eq!(origin_of("http://127.0.0.1:11434/v1").as_deref(), Some("http://127.0.0.1:11434"));
    assert_eq!(origin_of("not a url"), None);
    // The default port is no part of the origin; only web URLs have one a permission can name.
    assert_eq!(origin_of("https://a.example:443/x").as_deref(), Some("https://a.example"));
    assert_eq!(origin_of("file:///home/ada/notes.html"), None);
    assert_eq!(origin_of("chrome://settings/"), None);
}

#[test]
fn only_http_https_and_file_urls_are_web_pages() {
    let urls = [
        "https://a.example/x",
        "http://127.0.0.1:8080/",
        "HTTPS://A.EXAMPLE",
        "file:///home/ada/notes.html",
        "chrome://extensions/",
        "chrome-extension://abcdefghijklmnop/chat.html",
        "edge://settings",
        "about:blank",
        "devtools://devtools/bundled/inspector.html",
        "view-source:https://a.example",
        "",
        "https",
    ];
    assert_eq!(
        urls.map(is_web_url),
        [true, true, true, true, false, false, false, false, false, false, false, false]
    );
}
