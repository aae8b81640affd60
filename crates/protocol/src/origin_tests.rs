//! Origin parsing and pattern matching edge cases.

use pretty_assertions::assert_eq;

use super::*;

#[track_caller]
fn check(url: &str, expect: &str) {
    let res = match Origin::parse(url) {
        Ok(origin) => origin.to_string(),
        Err(err) => format!("error: {err}"),
    };
    assert_eq!(res, expect, "parsing {url:?}");
}

#[test]
fn parses_web_origins() {
    check("https://example.com/path?q=1#f", "https://example.com");
    check("HTTPS://EXAMPLE.COM/", "https://example.com");
    check("http://example.com:80/", "http://example.com");
    check("https://example.com:443", "https://example.com");
    check("http://example.com:443/", "http://example.com:443");
    check("https://example.com:8443/x", "https://example.com:8443");
    check("https://example.com:/x", "https://example.com");
    check("https://example.com./", "https://example.com");
    check("https://example.com..", "https://example.com");
    check("https://user:pw@example.com/", "https://example.com");
    check("https://bank.test@evil.test/", "https://evil.test");
    check("https://evil.test\\@bank.test/", "https://evil.test");
    check("https://example.com?x=@bank.test", "https://example.com");
    check("https://[::1]:8080/", "https://[::1]:8080");
    check("https://[::1]/", "https://[::1]");
    check("https://bücher.example/", "https://bücher.example");
    check("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example");
    check("  https://example.com  ", "https://example.com");
    check("ht\ttps://exa\nmple.com", "https://example.com");
}

#[test]
fn parses_special_schemes() {
    check("chrome://Settings/passwords", "chrome://settings");
    check("edge://extensions", "edge://extensions");
    check("about:blank", "about:");
    check("javascript:alert(1)", "javascript:");
    check("JaVaScRiPt:alert(1)", "javascript:");
    check("java\nscript:alert(1)", "javascript:");
    check(" \u{1}javascript:alert(1)", "javascript:");
    check("data:text/html,<b>", "data:");
    check("vbscript:msgbox", "vbscript:");
    check("file:///etc/passwd", "file://");
}

#[test]
fn rejects_what_it_cannot_read() {
    check("", "error: empty url");
    check("example.com", "error: unknown scheme in \"example.com\"");
    check("ftp://example.com", "error: unknown scheme in \"ftp://example.com\"");
    check("https:example.com", "error: missing host in \"https:example.com\"");
    check("https://", "error: missing host in \"https://\"");
    check("https://example.com:99999", "error: invalid port \"99999\"");
    check("https://example.com:8o", "error: invalid port \"8o\"");
    check("https://paypal%2ecom/", "error: invalid host \"paypal%2ecom\"");
    // Fullwidth delimiters fold into forbidden host code points, as in a browser.
    check(
        "https://ｅｖｉｌ．ｔｅｓｔ＠paypal.com/",
        "error: invalid host \"evil.test@paypal.com\"",
    );
    check("https://ｐａｙｐａｌ％２ｅcom/", "error: invalid host \"paypal%2ecom\"");
}

#[test]
fn folds_fullwidth_hosts_and_spots_idns() {
    check("https://ｐａｙｐａｌ.com/", "https://paypal.com");
    check("https://ＰＡＹＰＡＬ．ＣＯＭ/", "https://paypal.com");
    check("https://paypal。com/", "https://paypal.com");
    check("https://ｗｗｗ.ｃｈａｓｅ.ｃｏｍ:４４３/", "error: invalid port \"４４３\"");
    check("https://BÜCHER.example/", "https://bücher.example");
    let idn = |url: &str| Origin::parse(url).expect("url").is_idn();
    assert!(!idn("https://ｐａｙｐａｌ.com/"));
    assert!(!idn("https://example.com/"));
    assert!(idn("https://pаypal.com/"), "Cyrillic а");
    assert!(idn("https://xn--pypal-4ve.com/"));
    assert!(idn("https://shop.XN--p1ai/"));
    assert!(!idn("https://axn--b.test/"));
    check_match("*.ｐａｙｐａｌ.com", "https://www.paypal.com", true);
    let look_alike =
        |url: &str| Origin::parse(url).expect("url").look_alike().map(|it| it.to_string());
    assert_eq!(
        look_alike("https://xn--pypal-4ve.com:8443/").as_deref(),
        Some("https://paypal.com:8443")
    );
    assert_eq!(look_alike("https://paypal.com/"), None);
}

#[track_caller]
fn check_match(pattern: &str, url: &str, expect: bool) {
    let pattern = OriginPattern::parse(pattern).expect("pattern");
    let origin = Origin::parse(url).expect("url");
    assert_eq!(pattern.matches(Some(&origin)), expect, "{pattern:?} vs {url}");
}

#[test]
fn matches_patterns() {
    check_match("*", "https://a.test", true);
    check_match("https://example.com", "https://example.com/x", true);
    check_match("https://example.com", "https://EXAMPLE.com.:443/", true);
    check_match("https://example.com", "http://example.com", false);
    check_match("https://example.com", "https://example.com:8443", false);
    check_match("https://example.com", "https://www.example.com", false);
    check_match("*.example.com", "https://example.com", true);
    check_match("*.example.com", "http://a.b.example.com:8080", true);
    check_match("*.example.com", "https://badexample.com", false);
    check_match("*.example.com", "https://example.com.evil.test", false);
    check_match("*.EXAMPLE.com.", "https://www.example.com", true);
    check_match("*.example.com", "chrome://example.com", false);
    check_match("chrome://*", "chrome://settings", true);
    check_match("chrome://*", "https://chrome.test", false);
    check_match("about:*", "about:blank", true);
    check_match("*.gov", "https://irs.gov", true);
    check_match("*.gov", "https://gov.example", false);
}

#[test]
fn originless_calls_match_only_star() {
    assert!(OriginPattern::Any.matches(None));
    let domain = OriginPattern::parse("*.example.com").expect("pattern");
    assert!(!domain.matches(None));
}

#[test]
fn rejects_bad_patterns() {
    for pattern in ["*.", "https://*.example.com", "ftp://*", "a*b", "*.a/b"] {
        assert!(OriginPattern::parse(pattern).is_err(), "{pattern}");
    }
}
