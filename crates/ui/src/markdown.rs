//! Markdown of model output to HTML, in Rust (pulldown-cmark with GFM tables, task lists and
//! strikethrough); closed code blocks of known languages are highlighted.
//!
//! Model text is untrusted: raw HTML in it is shown as text, never as markup; link targets other
//! than `http(s):`, `mailto:` and fragments are dropped; images become links, because loading a
//! remote image from a model-chosen URL would leak the conversation through the URL.

mod highlight;

use pulldown_cmark::CodeBlockKind;
use pulldown_cmark::CowStr;
use pulldown_cmark::Event;
use pulldown_cmark::Options;
use pulldown_cmark::Parser;
use pulldown_cmark::Tag;
use pulldown_cmark::TagEnd;
use pulldown_cmark::html::push_html;

/// Whether the text is final or still streaming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completeness {
    /// The item completed: render everything.
    Complete,
    /// More text may follow: a trailing code block that is still open stays plain text.
    Streaming,
}

/// Renders `text` as HTML that is safe to insert into the page.
pub fn render(text: &str, completeness: Completeness) -> String {
    let open_fence = match completeness {
        Completeness::Complete => None,
        Completeness::Streaming => open_fence_start(text),
    };
    let (closed, tail) = match open_fence {
        Some(start) => (&text[..start], Some(&text[start..])),
        None => (text, None),
    };
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    render_closed(closed, &mut out);
    if let Some(tail) = tail {
        // Still streaming: highlighting and language detection wait until the fence closes, so
        // the block does not re-render (and flicker) on every delta.
        out.push_str("<pre class=\"streaming\"><code>");
        let body = tail.split_once('\n').map(|(_, body)| body).unwrap_or("");
        escape_into(body, &mut out);
        out.push_str("</code></pre>\n");
    }
    out
}

/// Escapes `text` for an HTML text node or quoted attribute.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(text, &mut out);
    out
}

fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH
}

fn render_closed(text: &str, out: &mut String) {
    let events = Parser::new_ext(text, options()).map(sanitize);
    push_html(out, Highlighted { events, code: None });
}

/// Replaces each fenced code block of a known language by its highlighted HTML. Runs after
/// [`sanitize`], so the `Html` events it makes are its own (escaped) output, never model text.
struct Highlighted<'a, I> {
    events: I,
    /// The language and text of the code block being collected.
    code: Option<(CowStr<'a>, String)>,
}

impl<'a, I: Iterator<Item = Event<'a>>> Iterator for Highlighted<'a, I> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            let event = self.events.next()?;
            match (event, &mut self.code) {
                (Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))), None) => {
                    let lang = info.split_whitespace().next().unwrap_or("").to_owned();
                    if highlight::highlight("", &lang).is_none() {
                        return Some(Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))));
                    }
                    self.code = Some((CowStr::from(lang), String::new()));
                }
                (Event::Text(text), Some((_, code))) => code.push_str(&text),
                (Event::End(TagEnd::CodeBlock), Some(_)) => {
                    let (lang, code) = self.code.take()?;
                    let body = highlight::highlight(&code, &lang).unwrap_or_default();
                    // `lang` matched a known name, so it needs no escaping.
                    let html =
                        format!("<pre><code class=\"language-{lang}\">{body}</code></pre>\n");
                    return Some(Event::Html(CowStr::from(html)));
                }
                (event, _) => return Some(event),
            }
        }
    }
}

/// Turns every event that could inject markup or script into a harmless one.
fn sanitize(event: Event<'_>) -> Event<'_> {
    match event {
        // Raw HTML from the model is shown as the text it is.
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe_url(dest_url), title, id })
        }
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe_url(dest_url), title, id })
        }
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    }
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let allowed = lower.starts_with("https://")
        || lower.starts_with("http://")
        || lower.starts_with("mailto:")
        || lower.starts_with('#');
    if allowed { url } else { CowStr::Borrowed("") }
}

/// Byte offset of the line opening a fenced code block that is not closed by the end of `text`.
fn open_fence_start(text: &str) -> Option<usize> {
    let mut open: Option<(usize, char, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let Some((fence_char, fence_len, rest)) = fence(line) else { continue };
        match open {
            None => open = Some((start, fence_char, fence_len)),
            Some((_, open_char, open_len)) => {
                // A closing fence has the same character, at least the same length, and no info
                // string.
                if fence_char == open_char && fence_len >= open_len && rest.trim().is_empty() {
                    open = None;
                }
            }
        }
    }
    open.map(|(start, _, _)| start)
}

/// The fence character, its run length and the rest of the line, if `line` is a code fence.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let body = &line[indent..];
    let fence_char = body.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let fence_len = body.len() - body.trim_start_matches(fence_char).len();
    if fence_len < 3 {
        return None;
    }
    let rest = &body[fence_len..];
    // A backtick fence's info string may not contain backticks (CommonMark 4.5).
    if fence_char == '`' && rest.contains('`') {
        return None;
    }
    Some((fence_char, fence_len, rest))
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
