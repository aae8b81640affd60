//! A small Rust lexer for the tidy checks: code tokens (identifiers, `::`, string literals and
//! single punctuation characters) and comments, each with its line. It knows exactly what is needed
//! to tell code from comments and strings (nested block comments, raw strings, byte and C strings,
//! char literals against lifetimes, raw identifiers); numbers are dropped and operators come out one
//! character at a time.

/// One code token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier or keyword (`r#type` comes out as `type`).
    Ident(String),
    /// A string literal's text as written, escapes left alone.
    Str(String),
    /// `::`.
    PathSep,
    /// Any other character that is not whitespace.
    Punct(char),
}

/// A token and the line it starts on (1-based).
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: usize,
}

/// A file split into code tokens and comment lines.
#[derive(Debug, Default)]
pub(crate) struct Lexed {
    pub(crate) tokens: Vec<Token>,
    /// Each comment line with its line number; a block comment gives one entry per line.
    pub(crate) comments: Vec<(usize, String)>,
}

/// Lexes Rust source. Malformed input (an unterminated string or comment) ends the scan quietly.
pub(crate) fn lex(src: &str) -> Lexed {
    let c: Vec<char> = src.chars().collect();
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let mut out = Lexed::default();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let start_line = line;
        let mut push = |tok| out.tokens.push(Token { tok, line: start_line });
        match (c[i], at(i + 1)) {
            ('\n', _) => {
                line += 1;
                i += 1;
            }
            (ch, _) if ch.is_whitespace() => i += 1,
            ('/', '/') => {
                let end = c[i..].iter().position(|&ch| ch == '\n').map_or(c.len(), |p| i + p);
                out.comments.push((line, c[i..end].iter().collect()));
                i = end;
            }
            ('/', '*') => {
                let (mut depth, mut text) = (0, String::new());
                while i < c.len() {
                    let (step, delta) = match (c[i], at(i + 1)) {
                        ('/', '*') => (2, 1),
                        ('*', '/') => (2, -1),
                        _ => (1, 0),
                    };
                    depth += delta;
                    if c[i] == '\n' {
                        out.comments.push((line, std::mem::take(&mut text)));
                        line += 1;
                    } else {
                        text.extend(&c[i..i + step]);
                    }
                    i += step;
                    if depth == 0 {
                        break;
                    }
                }
                out.comments.push((line, text));
            }
            ('"', _) => {
                let (text, end, lines) = quoted(&c, i + 1, None);
                push(Tok::Str(text));
                (i, line) = (end, line + lines);
            }
            ('\'', '\\') => {
                // An escaped char literal: skip the escaped character, then up to the quote.
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            ('\'', _) if at(i + 2) == '\'' => i += 3,
            (ch, _) if ch.is_alphabetic() || ch == '_' => {
                let end = word_end(&c, i);
                let word: String = c[i..end].iter().collect();
                let hashes = c[end..].iter().take_while(|&&ch| ch == '#').count();
                match word.as_str() {
                    "r" | "br" | "cr" if at(end + hashes) == '"' => {
                        let (text, after, lines) = quoted(&c, end + hashes + 1, Some(hashes));
                        push(Tok::Str(text));
                        (i, line) = (after, line + lines);
                    }
                    "b" | "c" if at(end) == '"' => {
                        let (text, after, lines) = quoted(&c, end + 1, None);
                        push(Tok::Str(text));
                        (i, line) = (after, line + lines);
                    }
                    "b" if at(end) == '\'' => {
                        // A byte literal: the same two forms as a char literal.
                        let close = if at(end + 1) == '\\' { end + 3 } else { end + 2 };
                        let rest = c[close.min(c.len())..].iter().position(|&ch| ch == '\'');
                        i = rest.map_or(c.len(), |p| close + p + 1);
                    }
                    "r" if hashes == 1 && (at(end + 1).is_alphabetic() || at(end + 1) == '_') => {
                        let raw_end = word_end(&c, end + 1);
                        push(Tok::Ident(c[end + 1..raw_end].iter().collect()));
                        i = raw_end;
                    }
                    _ => {
                        push(Tok::Ident(word));
                        i = end;
                    }
                }
            }
            (ch, _) if ch.is_ascii_digit() => i = word_end(&c, i),
            (':', ':') => {
                push(Tok::PathSep);
                i += 2;
            }
            (ch, _) => {
                push(Tok::Punct(ch));
                i += 1;
            }
        }
    }
    out
}

/// The end of the identifier-like word starting at `i`.
fn word_end(c: &[char], i: usize) -> usize {
    c[i..].iter().position(|&ch| !(ch.is_alphanumeric() || ch == '_')).map_or(c.len(), |p| i + p)
}

/// A string body from `i` up to its closing quote (for a raw string, `Some` number of `#` after
/// it, and no escapes): its text, the index after it and the newlines inside.
fn quoted(c: &[char], mut i: usize, raw: Option<usize>) -> (String, usize, usize) {
    let start = i.min(c.len());
    let hashes = raw.unwrap_or(0);
    while i < c.len() {
        match c[i] {
            '\\' if raw.is_none() => i += 2,
            '"' if c[i + 1..].iter().take(hashes).filter(|&&ch| ch == '#').count() == hashes => {
                break;
            }
            _ => i += 1,
        }
    }
    let text: String = c[start..i.min(c.len())].iter().collect();
    let lines = text.matches('\n').count();
    (text, (i + 1 + hashes).min(c.len()), lines)
}
