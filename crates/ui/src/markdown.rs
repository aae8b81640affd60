//! Markdown of model output to HTML, in Rust (pulldown-cmark with GFM tables, task lists and
//! strikethrough); closed code blocks of known languages are highlighted, and every closed code
//! block comes with a header naming its language and a copy button (`.copy-code`, which the
//! page's click handler runs: the HTML here carries no script).
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

/// Renders `text` as HTML that is safe to insert into the page; `copy_label` names the code
/// blocks' copy buttons in the page's language.
pub fn render(text: &str, completeness: Completeness, copy_label: &str) -> String {
    let open_fence = match completeness {
        Completeness::Complete => None,
        Completeness::Streaming => open_fence_start(text),
    };
    let (closed, tail) = match open_fence {
        Some(start) => (&text[..start], Some(&text[start..])),
        None => (text, None),
    };
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    render_closed(closed, copy_label, &mut out);
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

fn render_closed(text: &str, copy_label: &str, out: &mut String) {
    let events = Parser::new_ext(text, options()).map(sanitize);
    push_html(out, CodeBlocks { events, code: None, copy_label });
}

/// Replaces each code block by its own HTML: highlighted when its language is known, escaped
/// otherwise, under a header with the language and a copy button. Runs after [`sanitize`], so
/// the `Html` events it makes are its own (escaped) output, never model text.
struct CodeBlocks<'l, I> {
    events: I,
    /// The language and text of the code block being collected.
    code: Option<(String, String)>,
    /// The copy button's text.
    copy_label: &'l str,
}

impl<'a, I: Iterator<Item = Event<'a>>> Iterator for CodeBlocks<'_, I> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            let event = self.events.next()?;
            match (event, &mut self.code) {
                (Event::Start(Tag::CodeBlock(kind)), None) => {
                    let lang = match kind {
                        CodeBlockKind::Fenced(info) => {
                            info.split_whitespace().next().unwrap_or("").to_owned()
                        }
                        CodeBlockKind::Indented => String::new(),
                    };
                    self.code = Some((lang, String::new()));
                }
                (Event::Text(text), Some((_, code))) => code.push_str(&text),
                (Event::End(TagEnd::CodeBlock), Some(_)) => {
                    let (lang, code) = self.code.take()?;
                    let html = code_block(&lang, &code, self.copy_label);
                    return Some(Event::Html(CowStr::from(html)));
                }
                (event, _) => return Some(event),
            }
        }
    }
}

/// A closed code block: the header (language, copy button) over the code, highlighted when the
/// language is known. The language comes from the model's info string, so it is escaped.
fn code_block(lang: &str, code: &str, copy_label: &str) -> String {
    let (lang, copy_label) = (escape_html(lang), escape_html(copy_label));
    let body = highlight::highlight(code, &lang).unwrap_or_else(|| escape_html(code));
    let class = if lang.is_empty() { String::new() } else { format!(" class=\"language-{lang}\"") };
    let copy_icon = crate::icons::Icon::Copy.href();
    format!(
        "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">{lang}</span>\
         <button type=\"button\" class=\"copy-code\"><svg class=\"icon\" aria-hidden=\"true\">\
         <use href=\"{copy_icon}\"></use></svg><span class=\"copy-label\">{copy_label}</span></button>\
         </div><pre><code{class}>{body}</code></pre></div>\n"
    )
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
