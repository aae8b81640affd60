//! HTML reduced to the text a person reads: headings, paragraphs, list items, table rows and
//! links (`[text](url)`), without scripts, styles, templates, drawings or elements the page
//! hides. A service worker has no `DOMParser`, so this is a small tolerant tokenizer: it never
//! fails, is linear in the input, and treats anything it does not understand as text.

/// The readable text of an HTML document and its title. `base` is the document's URL, against
/// which relative links are made absolute.
pub(crate) fn html_to_text(html: &str, base: &str) -> Readable {
    let mut reader = Reader { out: Text::default(), title: None, base, links: Vec::new() };
    reader.run(html);
    Readable { title: reader.title, text: reader.out.finish() }
}

/// What [`html_to_text`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Readable {
    /// The document's `<title>`, whitespace collapsed.
    pub(crate) title: Option<String>,
    /// The text, one block per line, at most one blank line in a row.
    pub(crate) text: String,
}

/// Elements whose content is never text for a reader.
const SKIPPED: &[&str] =
    &["script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas"];

/// Elements whose content is raw text (no tags inside): skipped up to their end tag.
const RAW_TEXT: &[&str] = &["script", "style", "textarea", "xmp", "noscript", "template"];

/// Elements without content.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements that start a new line.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "html",
    "legend",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "thead",
    "tfoot",
    "ul",
];

/// Elements with an optional end tag: a `hidden` one is not skipped, since where it ends is a
/// guess and a wrong guess would drop the rest of the page.
const OPTIONAL_END: &[&str] =
    &["p", "li", "dt", "dd", "tr", "td", "th", "option", "thead", "tbody", "tfoot", "colgroup"];

struct Reader<'a> {
    out: Text,
    title: Option<String>,
    base: &'a str,
    /// Open links: the `href` of each and where its text starts in the output.
    links: Vec<(Option<String>, usize)>,
}

impl Reader<'_> {
    fn run(&mut self, html: &str) {
        let mut rest = html;
        while let Some(at) = rest.find('<') {
            self.out.text(&decode_entities(&rest[..at]));
            rest = &rest[at..];
            rest = match Tag::parse(rest) {
                Some((tag, after)) => self.tag(&tag, after),
                // A `<` that starts no tag is text.
                None => {
                    self.out.text("<");
                    &rest[1..]
                }
            };
        }
        self.out.text(&decode_entities(rest));
    }

    /// Handles one tag; returns the input after it (and after any content it skips).
    fn tag<'h>(&mut self, tag: &Tag, after: &'h str) -> &'h str {
        let name = tag.name.as_str();
        match tag.kind {
            TagKind::Other => after,
            TagKind::End => {
                self.end(name);
                after
            }
            TagKind::Start if name == "title" => {
                let (inner, rest) = raw_content(after, "title");
                let title = collapse(&decode_entities(inner));
                if self.title.is_none() && !title.is_empty() {
                    self.title = Some(title);
                }
                rest
            }
            TagKind::Start if SKIPPED.contains(&name) || tag.is_hidden() => {
                if RAW_TEXT.contains(&name) {
                    raw_content(after, name).1
                } else if tag.self_closing || OPTIONAL_END.contains(&name) {
                    self.start(tag);
                    after
                } else {
                    skip_element(after, name)
                }
            }
            TagKind::Start if RAW_TEXT.contains(&name) => {
                // `textarea`, `xmp`: their text is shown as is.
                let (inner, rest) = raw_content(after, name);
                self.out.text(&decode_entities(inner));
                rest
            }
            TagKind::Start => {
                self.start(tag);
                after
            }
        }
    }

    fn start(&mut self, tag: &Tag) {
        let name = tag.name.as_str();
        match name {
            "br" => self.out.newline(),
            "hr" => {
                self.out.block();
                self.out.text("---");
                self.out.block();
            }
            "li" => {
                self.out.newline_if_needed();
                self.out.raw("- ");
            }
            "tr" => self.out.newline_if_needed(),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.out.block();
                let level = usize::from(name.as_bytes()[1] - b'0');
                self.out.raw(&format!("{} ", "#".repeat(level)));
            }
            "td" | "th" => self.out.cell(),
            "pre" => {
                self.out.block();
                self.out.pre += 1;
            }
            "img" => {
                if let Some(alt) =
                    tag.attr("alt").map(|alt| collapse(&alt)).filter(|a| !a.is_empty())
                {
                    self.out.text(&format!(" [image: {alt}] "));
                }
            }
            "a" => {
                let href = tag.attr("href").and_then(|href| absolute(self.base, href.trim()));
                self.links.push((href, self.out.buf.len()));
            }
            _ if BLOCKS.contains(&name) => self.out.block(),
            _ => {}
        }
        if tag.self_closing || VOID.contains(&name) {
            // `<a/>` and the like open nothing.
            if name == "a" {
                self.links.pop();
            }
        }
    }

    fn end(&mut self, name: &str) {
        match name {
            "a" => {
                let Some((Some(href), from)) = self.links.pop() else { return };
                // `from` may no longer be a boundary when a block inside the link trimmed the
                // text; such a link is left as plain text.
                let Some(written) = self.out.buf.get(from..) else { return };
                let text = written.trim();
                // A link whose text is its URL says it once.
                if !text.is_empty() && text != href {
                    let at = from + (written.len() - written.trim_start().len());
                    self.out.trim_end_spaces();
                    self.out.raw(&format!("]({href})"));
                    self.out.buf.insert(at, '[');
                }
            }
            "pre" => {
                self.out.pre = self.out.pre.saturating_sub(1);
                self.out.block();
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.out.block(),
            "li" | "tr" => self.out.newline_if_needed(),
            _ if BLOCKS.contains(&name) => self.out.block(),
            _ => {}
        }
    }
}

/// The text being written: whitespace collapsed outside `<pre>`, blocks on their own lines.
#[derive(Default)]
struct Text {
    buf: String,
    /// Depth of open `<pre>` elements.
    pre: usize,
    /// Whether the current line has a table cell already.
    in_row: bool,
}

impl Text {
    fn text(&mut self, text: &str) {
        if self.pre > 0 {
            self.buf.push_str(text);
            return;
        }
        for (index, word) in text.split(is_space).enumerate() {
            let at_line_start = self.buf.is_empty() || self.buf.ends_with('\n');
            let spaced = self.buf.ends_with(' ') || at_line_start;
            if index > 0 && !spaced {
                self.buf.push(' ');
            }
            self.buf.push_str(word);
        }
    }

    fn raw(&mut self, text: &str) {
        self.buf.push_str(text);
    }

    fn newline(&mut self) {
        self.trim_end_spaces();
        self.buf.push('\n');
        self.in_row = false;
    }

    /// Starts a block: a fresh line, and at most one blank line before it.
    fn block(&mut self) {
        self.trim_end_spaces();
        if !self.buf.is_empty() && !self.buf.ends_with("\n\n") {
            self.buf.push('\n');
            if !self.buf.ends_with("\n\n") {
                self.buf.push('\n');
            }
        }
        self.in_row = false;
    }

    fn cell(&mut self) {
        if self.in_row {
            self.trim_end_spaces();
            self.buf.push_str(" | ");
        } else {
            self.newline_if_needed();
            self.in_row = true;
        }
    }

    fn newline_if_needed(&mut self) {
        self.trim_end_spaces();
        if !self.buf.is_empty() && !self.buf.ends_with('\n') {
            self.buf.push('\n');
        }
        self.in_row = false;
    }

    fn trim_end_spaces(&mut self) {
        let kept = self.buf.trim_end_matches([' ', '\t']).len();
        self.buf.truncate(kept);
    }

    fn finish(self) -> String {
        let mut out = String::with_capacity(self.buf.len());
        let mut blank = 0;
        for line in self.buf.lines().map(str::trim_end) {
            if line.trim().is_empty() {
                blank += 1;
                continue;
            }
            if !out.is_empty() {
                out.push_str(if blank > 0 { "\n\n" } else { "\n" });
            }
            blank = 0;
            out.push_str(line);
        }
        out
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}')
}

/// Whitespace collapsed to single spaces, trimmed.
fn collapse(text: &str) -> String {
    text.split(is_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagKind {
    Start,
    End,
    /// A comment, doctype or processing instruction.
    Other,
}

#[derive(Debug)]
struct Tag {
    kind: TagKind,
    /// Lowercased.
    name: String,
    /// Names lowercased, values as written (entities decoded).
    attrs: Vec<(String, String)>,
    self_closing: bool,
}

impl Tag {
    /// The tag at the start of `input` (which starts with `<`) and the input after it; `None`
    /// when the `<` starts no tag.
    fn parse(input: &str) -> Option<(Tag, &str)> {
        let body = &input[1..];
        if let Some(comment) = body.strip_prefix("!--") {
            let end = comment.find("-->").map_or(comment.len(), |at| at + 3);
            return Some((Tag::other(), &comment[end..]));
        }
        if body.starts_with('!') || body.starts_with('?') {
            let end = body.find('>').map_or(body.len(), |at| at + 1);
            return Some((Tag::other(), &body[end..]));
        }
        let (kind, body) = match body.strip_prefix('/') {
            Some(rest) => (TagKind::End, rest),
            None => (TagKind::Start, body),
        };
        let name_len = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == ':'))
            .unwrap_or(body.len());
        if name_len == 0 || !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        let name = body[..name_len].to_ascii_lowercase();
        let (attrs, self_closing, rest) = parse_attrs(&body[name_len..]);
        Some((Tag { kind, name, attrs, self_closing }, rest))
    }

    fn other() -> Tag {
        Tag { kind: TagKind::Other, name: String::new(), attrs: Vec::new(), self_closing: false }
    }

    fn attr(&self, name: &str) -> Option<String> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }

    /// Hidden from people: `hidden`, `aria-hidden="true"`, or an inline `display:none` or
    /// `visibility:hidden` (text a page hides is a classic place for injected instructions).
    fn is_hidden(&self) -> bool {
        self.attrs.iter().any(|(name, value)| match name.as_str() {
            "hidden" => true,
            "aria-hidden" => value.eq_ignore_ascii_case("true"),
            "style" => {
                let style: String = value
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_ascii_lowercase();
                style.contains("display:none") || style.contains("visibility:hidden")
            }
            _ => false,
        })
    }
}

/// Attributes up to the tag's `>`: (attributes, self-closing, input after the tag).
fn parse_attrs(mut input: &str) -> (Vec<(String, String)>, bool, &str) {
    let mut attrs = Vec::new();
    let mut self_closing = false;
    loop {
        input = input.trim_start_matches(is_space);
        let Some(first) = input.chars().next() else { return (attrs, self_closing, input) };
        match first {
            '>' => return (attrs, self_closing, &input[1..]),
            '/' => {
                self_closing = true;
                input = &input[1..];
                continue;
            }
            _ => self_closing = false,
        }
        let name_len = input
            .find(|c: char| is_space(c) || c == '=' || c == '>' || c == '/')
            .unwrap_or(input.len())
            .max(first.len_utf8());
        let name = input[..name_len].to_ascii_lowercase();
        input = input[name_len..].trim_start_matches(is_space);
        let value = match input.strip_prefix('=') {
            Some(after) => {
                let after = after.trim_start_matches(is_space);
                let (value, rest) = match after.chars().next() {
                    Some(quote @ ('"' | '\'')) => {
                        let inner = &after[1..];
                        let end = inner.find(quote).unwrap_or(inner.len());
                        (&inner[..end], inner.get(end + 1..).unwrap_or(""))
                    }
                    _ => {
                        let end =
                            after.find(|c: char| is_space(c) || c == '>').unwrap_or(after.len());
                        (&after[..end], &after[end..])
                    }
                };
                input = rest;
                decode_entities(value)
            }
            None => String::new(),
        };
        attrs.push((name, value));
    }
}

/// The content of a raw-text element up to its end tag, and the input after that tag.
fn raw_content<'h>(input: &'h str, name: &str) -> (&'h str, &'h str) {
    let lower = input.to_ascii_lowercase();
    let close = format!("</{name}");
    match lower.find(&close) {
        Some(at) => {
            let after = &input[at + close.len()..];
            let end = after.find('>').map_or(after.len(), |e| e + 1);
            (&input[..at], &after[end..])
        }
        None => (input, ""),
    }
}

/// The input after the end of an element whose start tag was just read, counting nested
/// elements of the same name.
fn skip_element<'h>(mut input: &'h str, name: &str) -> &'h str {
    let mut depth = 1usize;
    while let Some(at) = input.find('<') {
        input = &input[at..];
        match Tag::parse(input) {
            Some((tag, rest)) => {
                if tag.name == name {
                    match tag.kind {
                        TagKind::Start if !tag.self_closing => depth += 1,
                        TagKind::End => depth -= 1,
                        TagKind::Start | TagKind::Other => {}
                    }
                }
                input = if tag.kind == TagKind::Start && RAW_TEXT.contains(&tag.name.as_str()) {
                    raw_content(rest, &tag.name).1
                } else {
                    rest
                };
                if depth == 0 {
                    return input;
                }
            }
            None => input = &input[1..],
        }
    }
    ""
}

/// `href` made absolute against `base`; `None` for links that lead nowhere a reader can follow
/// (fragments of the same page, `javascript:`, empty).
fn absolute(base: &str, href: &str) -> Option<String> {
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let scheme_len = href.find(':').filter(|&at| {
        href[..at].chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            && !href[..at].is_empty()
    });
    if let Some(at) = scheme_len {
        let scheme = href[..at].to_ascii_lowercase();
        return matches!(scheme.as_str(), "http" | "https" | "mailto").then(|| href.to_owned());
    }
    let scheme_end = base.find("://")? + 3;
    let host_end =
        base[scheme_end..].find(['/', '?', '#']).map_or(base.len(), |at| at + scheme_end);
    if let Some(rest) = href.strip_prefix("//") {
        return Some(format!("{}{rest}", &base[..scheme_end]));
    }
    if href.starts_with('/') {
        return Some(format!("{}{href}", &base[..host_end]));
    }
    let path_end = base[host_end..].find(['?', '#']).map_or(base.len(), |at| at + host_end);
    if href.starts_with('?') {
        return Some(format!("{}{href}", &base[..path_end]));
    }
    let dir_end = base[host_end..path_end].rfind('/').map_or(host_end, |at| at + host_end);
    Some(format!("{}/{href}", &base[..dir_end]))
}

/// Character references decoded: numeric ones, and the named ones pages use for text.
fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '#')).map(|e| e + 1);
        let (name, after) = match end {
            Some(end) if rest[end..].starts_with(';') => (&rest[1..end], &rest[end + 1..]),
            Some(end) => (&rest[1..end], &rest[end..]),
            None => (&rest[1..], ""),
        };
        match entity(name) {
            Some(decoded) => {
                out.push(decoded);
                rest = after;
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", ' '),
    ("ensp", ' '),
    ("emsp", ' '),
    ("thinsp", ' '),
    ("shy", '\u{ad}'),
    ("ndash", '–'),
    ("mdash", '—'),
    ("hellip", '…'),
    ("lsquo", '‘'),
    ("rsquo", '’'),
    ("ldquo", '“'),
    ("rdquo", '”'),
    ("laquo", '«'),
    ("raquo", '»'),
    ("bull", '•'),
    ("middot", '·'),
    ("copy", '©'),
    ("reg", '®'),
    ("trade", '™'),
    ("deg", '°'),
    ("plusmn", '±'),
    ("times", '×'),
    ("divide", '÷'),
    ("euro", '€'),
    ("pound", '£'),
    ("yen", '¥'),
    ("cent", '¢'),
    ("sect", '§'),
    ("para", '¶'),
    ("larr", '←'),
    ("rarr", '→'),
    ("uarr", '↑'),
    ("darr", '↓'),
];

fn entity(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        // NUL and surrogates become the replacement character, as browsers do.
        return Some(char::from_u32(code).filter(|&c| c != '\0').unwrap_or('\u{fffd}'));
    }
    NAMED.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

#[cfg(test)]
#[path = "readable_tests.rs"]
mod tests;
