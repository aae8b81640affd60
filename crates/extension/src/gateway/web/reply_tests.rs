//! What `fetch_url` says about a response: kinds of body, windows of long text, errors, `HEAD`,
//! and the source the engine checks.

use panelot_core::engine::ToolStatus;
use pretty_assertions::assert_eq;

use super::*;

fn headers(content_type: &str) -> Vec<(String, String)> {
    vec![("content-type".to_owned(), content_type.to_owned())]
}

fn response<'a>(headers: &'a [(String, String)], body: &'a [u8]) -> Response<'a> {
    Response {
        requested: "http://docs.test/a",
        url: "http://docs.test/a",
        status: 200,
        headers,
        body,
        cut: false,
    }
}

fn content(outcome: &ToolOutcome) -> &str {
    match &outcome.status {
        ToolStatus::Done { content } => content,
        ToolStatus::Failed { message, .. } => message,
    }
}

#[test]
fn html_is_read_as_text_with_its_title() {
    let h = headers("text/html; charset=utf-8");
    let body = b"<title>Release notes</title><h1>v2</h1><script>steal()</script><p>Faster.</p>";
    let outcome = reply(&response(&h, body), Method::Get, 0);
    assert!(outcome.is_ok());
    assert_eq!(
        content(&outcome),
        format!(
            "URL: http://docs.test/a\nHTTP 200 · text/html; charset=utf-8 · {} bytes\nTitle: \
             Release notes\n\n# v2\n\nFaster.",
            body.len()
        )
    );
    assert_eq!(outcome.source.as_deref(), Some("http://docs.test/a"));
    let details = outcome.details.expect("details");
    assert_eq!(details["title"], "Release notes");
    assert_eq!(details["shown"]["of"], "# v2\n\nFaster.".chars().count());
}

#[test]
fn json_and_text_pass_through() {
    let h = headers("application/json");
    let outcome = reply(&response(&h, br#"{"a": [1, 2]}"#), Method::Get, 0);
    assert!(content(&outcome).ends_with("\n\n{\"a\": [1, 2]}"), "{}", content(&outcome));
    let h = headers("text/csv");
    let outcome = reply(&response(&h, b"a,b\n1,2"), Method::Get, 0);
    assert!(content(&outcome).ends_with("\n\na,b\n1,2"));
}

#[test]
fn binary_bodies_are_described_not_shown() {
    let h = headers("image/png");
    let outcome = reply(&response(&h, b"\x89PNG\r\n\x1a\n\0\0"), Method::Get, 0);
    assert!(outcome.is_ok());
    assert!(content(&outcome).ends_with("it is not shown."));
    assert!(!content(&outcome).contains("PNG"));
    // Without a content type, the bytes decide.
    let outcome = reply(&response(&[], b"\0\x01\x02binary"), Method::Get, 0);
    assert!(content(&outcome).ends_with("it is not shown."));
    let outcome = reply(&response(&[], b"<!DOCTYPE html><p>Hi</p>"), Method::Get, 0);
    assert!(content(&outcome).ends_with("\n\nHi"));
}

#[test]
fn long_text_comes_in_windows_that_say_how_to_read_on() {
    let h = headers("text/plain");
    let body = "é".repeat(SHOWN_MAX_CHARS + 500);
    let first = reply(&response(&h, body.as_bytes()), Method::Get, 0);
    let text = content(&first);
    assert_eq!(text.matches('é').count(), SHOWN_MAX_CHARS);
    assert!(text.ends_with(&format!(
        "[Characters 0–{SHOWN_MAX_CHARS} of {} shown. Call fetch_url with start={SHOWN_MAX_CHARS} \
         to read on.]",
        SHOWN_MAX_CHARS + 500
    )));
    let next = reply(&response(&h, body.as_bytes()), Method::Get, SHOWN_MAX_CHARS);
    assert_eq!(content(&next).matches('é').count(), 500);
    assert!(content(&next).ends_with(&format!(
        "[Characters {SHOWN_MAX_CHARS}–{} of {}: the end.]",
        SHOWN_MAX_CHARS + 500,
        SHOWN_MAX_CHARS + 500
    )));
    let past = reply(&response(&h, body.as_bytes()), Method::Get, 1_000_000);
    assert!(content(&past).ends_with(&format!(
        "Nothing from start=1000000: the text has {} characters.",
        SHOWN_MAX_CHARS + 500
    )));
}

#[test]
fn a_body_cut_at_the_read_budget_says_so() {
    let h = headers("text/plain");
    let body = b"short because the test says it was cut";
    let outcome = reply(&Response { cut: true, ..response(&h, body) }, Method::Get, 0);
    assert!(content(&outcome).contains("(stopped reading at 512 KiB)"));
    assert!(
        content(&outcome)
            .ends_with("[The response was longer than 512 KiB; the rest was not read.]")
    );
}

#[test]
fn error_statuses_fail_with_an_excerpt() {
    let h = headers("text/html");
    let body = b"<title>Not here</title><h1>404</h1><p>No such page.</p>";
    let outcome = reply(&Response { status: 404, ..response(&h, body) }, Method::Get, 0);
    assert!(!outcome.is_ok());
    assert_eq!(
        content(&outcome),
        "HTTP 404 from http://docs.test/a. The server said: # 404\n\nNo such page."
    );
}

#[test]
fn a_redirect_names_both_urls_and_the_source_is_where_it_ended() {
    let h = headers("text/plain");
    let outcome = reply(
        &Response { url: "https://www.docs.test/b", ..response(&h, b"moved") },
        Method::Get,
        0,
    );
    assert!(
        content(&outcome)
            .starts_with("URL: https://www.docs.test/b (redirected from http://docs.test/a)\n")
    );
    assert_eq!(outcome.source.as_deref(), Some("https://www.docs.test/b"));
}

#[test]
fn head_lists_the_headers() {
    let h = vec![
        ("content-type".to_owned(), "text/html".to_owned()),
        ("content-length".to_owned(), "1234".to_owned()),
    ];
    let outcome = reply(&response(&h, b""), Method::Head, 0);
    assert_eq!(
        content(&outcome),
        "URL: http://docs.test/a\nHTTP 200\ncontent-type: text/html\ncontent-length: 1234"
    );
}

#[test]
fn latin1_bodies_decode_byte_by_byte() {
    let h = headers("text/plain; charset=ISO-8859-1");
    let outcome = reply(&response(&h, b"caf\xe9"), Method::Get, 0);
    assert!(content(&outcome).ends_with("\n\ncafé"));
}
