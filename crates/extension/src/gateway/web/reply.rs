//! What `fetch_url` tells the model and the card about a response: HTML as readable text, JSON
//! and text as they are, anything else described rather than shown, at most
//! [`SHOWN_MAX_CHARS`] characters from where the model asked to start, and a line saying what
//! was cut and how to read on.

use panelot_core::engine::ToolOutcome;
use serde_json::json;

use super::readable::html_to_text;

/// The most of a body that is read; the rest is never downloaded.
pub(crate) const READ_MAX_BYTES: usize = 512 * 1024;

/// The most characters one call returns.
pub(crate) const SHOWN_MAX_CHARS: usize = 16_000;

/// The head of an error response shown with the status.
const ERROR_EXCERPT_CHARS: usize = 600;

/// The most header lines a `HEAD` lists.
const HEAD_MAX_LINES: usize = 40;

/// `GET` or `HEAD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    /// The body too.
    Get,
    /// Headers only.
    Head,
}

impl Method {
    /// The method's name on the wire.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
        }
    }
}

/// A response as it was read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Response<'a> {
    /// The URL asked for.
    pub(crate) requested: &'a str,
    /// The URL that answered, after redirects.
    pub(crate) url: &'a str,
    /// The status code.
    pub(crate) status: u16,
    /// Header names lowercased.
    pub(crate) headers: &'a [(String, String)],
    /// The body as read (at most [`READ_MAX_BYTES`]).
    pub(crate) body: &'a [u8],
    /// Whether reading stopped at [`READ_MAX_BYTES`] with more to come.
    pub(crate) cut: bool,
}

/// What the body is, as far as a reader cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
    Binary,
}

/// The outcome of a fetch: the model's text, the card's details, and the answering URL as the
/// content's source.
pub(crate) fn reply(response: &Response<'_>, method: Method, start: usize) -> ToolOutcome {
    let content_type = header(response.headers, "content-type").unwrap_or("");
    let mut head = format!("URL: {}", response.url);
    if response.url != response.requested {
        head.push_str(&format!(" (redirected from {})", response.requested));
    }
    let details = |shown: Option<(usize, usize, usize)>, title: Option<&str>| {
        json!({
            "url": response.url,
            "requested": response.requested,
            "method": method.name(),
            "status": response.status,
            "contentType": content_type,
            "bytes": response.body.len(),
            "cut": response.cut,
            "title": title,
            "shown": shown.map(|(from, to, total)| json!({"from": from, "to": to, "of": total})),
        })
    };
    if method == Method::Head {
        let mut text = format!("{head}\nHTTP {}", response.status);
        for (name, value) in response.headers.iter().take(HEAD_MAX_LINES) {
            text.push_str(&format!("\n{name}: {value}"));
        }
        return ToolOutcome::done(text).with_details(details(None, None)).with_source(response.url);
    }
    let kind = kind_of(content_type, response.body);
    let (title, body_text) = match kind {
        Kind::Html => {
            let readable = html_to_text(&decode(response.body, content_type), response.url);
            (readable.title, readable.text)
        }
        Kind::Text => (None, decode(response.body, content_type)),
        Kind::Binary => (None, String::new()),
    };
    if !(200..400).contains(&response.status) {
        let excerpt: String = body_text.chars().take(ERROR_EXCERPT_CHARS).collect();
        let mut message = format!("HTTP {} from {}", response.status, response.url);
        if !excerpt.trim().is_empty() {
            message.push_str(&format!(". The server said: {}", excerpt.trim()));
        }
        return ToolOutcome::failed(message)
            .with_details(details(None, title.as_deref()))
            .with_source(response.url);
    }
    let summary = format!(
        "HTTP {} · {} · {} bytes{}",
        response.status,
        if content_type.is_empty() { "no content type" } else { content_type },
        response.body.len(),
        if response.cut { " (stopped reading at 512 KiB)" } else { "" }
    );
    let mut text = format!("{head}\n{summary}");
    if let Some(title) = &title {
        text.push_str(&format!("\nTitle: {title}"));
    }
    if kind == Kind::Binary {
        text.push_str(
            "\n\nThe body is not text (an image, a PDF or other binary data); it is not shown.",
        );
        return ToolOutcome::done(text).with_details(details(None, None)).with_source(response.url);
    }
    let total = body_text.chars().count();
    let from = start.min(total);
    let shown: String = body_text.chars().skip(from).take(SHOWN_MAX_CHARS).collect();
    let to = from + shown.chars().count();
    if shown.trim().is_empty() {
        text.push_str(&if start >= total && total > 0 {
            format!("\n\nNothing from start={start}: the text has {total} characters.")
        } else {
            "\n\nThe body has no readable text.".to_owned()
        });
        return ToolOutcome::done(text)
            .with_details(details(Some((from, to, total)), title.as_deref()))
            .with_source(response.url);
    }
    text.push_str("\n\n");
    text.push_str(&shown);
    match (to < total, response.cut) {
        (true, _) => text.push_str(&format!(
            "\n\n[Characters {from}–{to} of {total} shown. Call fetch_url with start={to} to read on.]"
        )),
        (false, true) if total > 0 => text.push_str(
            "\n\n[The response was longer than 512 KiB; the rest was not read.]",
        ),
        (false, _) if from > 0 => {
            text.push_str(&format!("\n\n[Characters {from}–{to} of {total}: the end.]"));
        }
        (false, _) => {}
    }
    ToolOutcome::done(text)
        .with_details(details(Some((from, to, total)), title.as_deref()))
        .with_source(response.url)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

fn kind_of(content_type: &str, body: &[u8]) -> Kind {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match essence.as_str() {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        "" => sniff(body),
        e if e.starts_with("text/")
            || e.ends_with("+json")
            || e.ends_with("+xml")
            || matches!(
                e,
                "application/json"
                    | "application/xml"
                    | "application/javascript"
                    | "application/x-ndjson"
                    | "application/ld+json"
                    | "application/x-yaml"
                    | "application/yaml"
            ) =>
        {
            Kind::Text
        }
        _ => Kind::Binary,
    }
}

/// A body without a content type: HTML if it starts like markup, text if it is UTF-8.
fn sniff(body: &[u8]) -> Kind {
    let head = &body[..body.len().min(512)];
    let text = String::from_utf8_lossy(head);
    let start = text.trim_start().to_ascii_lowercase();
    if start.starts_with("<!doctype html") || start.starts_with("<html") {
        return Kind::Html;
    }
    // A cut at the end of the sample may split a character; only errors before it count.
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(err) => err.error_len().is_none(),
    };
    if valid && !head.contains(&0) { Kind::Text } else { Kind::Binary }
}

/// The body as text: Latin-1 family charsets byte by byte, everything else as UTF-8 (invalid
/// sequences replaced).
fn decode(body: &[u8], content_type: &str) -> String {
    let charset = content_type
        .split(';')
        .filter_map(|part| part.trim().split_once('='))
        .find(|(key, _)| key.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, value)| value.trim().trim_matches('"').to_ascii_lowercase());
    match charset.as_deref() {
        Some("iso-8859-1" | "latin1" | "windows-1252" | "us-ascii") => {
            body.iter().map(|&b| char::from(b)).collect()
        }
        _ => String::from_utf8_lossy(body).into_owned(),
    }
}

#[cfg(test)]
#[path = "reply_tests.rs"]
mod tests;
