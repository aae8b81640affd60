//! Syntax highlighting of closed code blocks: a small tokenizer (comments, strings, numbers,
//! keywords) for common languages, producing escaped HTML with `hl-*` spans. Not a parser: it
//! colours what a reader scans for and never fails; an unknown language stays plain.

/// How one language spells its tokens.
struct Syntax {
    keywords: &'static [&'static str],
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    quotes: &'static [char],
    /// SQL keywords match in any case.
    any_case: bool,
}

const C_FAMILY_COMMENTS: &[&str] = &["//"];

const RUST: Syntax = Syntax {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while",
    ],
    line_comments: C_FAMILY_COMMENTS,
    block_comment: Some(("/*", "*/")),
    // `'` also starts lifetimes, so char literals stay plain.
    quotes: &['"'],
    any_case: false,
};

const JAVASCRIPT: Syntax = Syntax {
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "interface",
        "let",
        "new",
        "null",
        "of",
        "return",
        "static",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "yield",
    ],
    line_comments: C_FAMILY_COMMENTS,
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '\'', '`'],
    any_case: false,
};

const PYTHON: Syntax = Syntax {
    keywords: &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield",
    ],
    line_comments: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
    any_case: false,
};

const GO: Syntax = Syntax {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "false",
        "for",
        "func",
        "go",
        "if",
        "import",
        "interface",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
    line_comments: C_FAMILY_COMMENTS,
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '`'],
    any_case: false,
};

const C_LIKE: Syntax = Syntax {
    keywords: &[
        "auto",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "extends",
        "false",
        "final",
        "float",
        "for",
        "fun",
        "if",
        "implements",
        "import",
        "int",
        "interface",
        "long",
        "namespace",
        "new",
        "null",
        "nullptr",
        "override",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "short",
        "signed",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "throw",
        "true",
        "try",
        "typedef",
        "unsigned",
        "using",
        "val",
        "var",
        "virtual",
        "void",
        "while",
    ],
    line_comments: C_FAMILY_COMMENTS,
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '\''],
    any_case: false,
};

const SHELL: Syntax = Syntax {
    keywords: &[
        "case", "do", "done", "echo", "elif", "else", "esac", "exit", "export", "fi", "for",
        "function", "if", "in", "local", "return", "then", "while",
    ],
    line_comments: &["#"],
    block_comment: None,
    quotes: &['"', '\''],
    any_case: false,
};

const JSON: Syntax = Syntax {
    keywords: &["false", "null", "true"],
    line_comments: &[],
    block_comment: None,
    quotes: &['"'],
    any_case: false,
};

const SQL: Syntax = Syntax {
    keywords: &[
        "and", "as", "by", "create", "delete", "desc", "from", "group", "having", "insert", "into",
        "join", "left", "limit", "not", "null", "on", "or", "order", "select", "set", "table",
        "update", "values", "where",
    ],
    line_comments: &["--"],
    block_comment: Some(("/*", "*/")),
    quotes: &['\''],
    any_case: true,
};

fn syntax(lang: &str) -> Option<&'static Syntax> {
    let syntax = match lang.to_ascii_lowercase().as_str() {
        "rust" | "rs" => &RUST,
        "javascript" | "js" | "jsx" | "typescript" | "ts" | "tsx" | "mjs" => &JAVASCRIPT,
        "python" | "py" => &PYTHON,
        "go" | "golang" => &GO,
        "c" | "h" | "cpp" | "c++" | "cc" | "java" | "kotlin" | "kt" | "cs" | "csharp" | "swift" => {
            &C_LIKE
        }
        "sh" | "bash" | "shell" | "zsh" | "console" => &SHELL,
        "json" | "jsonc" => &JSON,
        "sql" => &SQL,
        _ => return None,
    };
    Some(syntax)
}

/// The highlighted, escaped HTML of `code` in `lang`; `None` for a language it does not know.
pub(crate) fn highlight(code: &str, lang: &str) -> Option<String> {
    let syntax = syntax(lang)?;
    let mut out = String::with_capacity(code.len() * 2);
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        let (class, len) = token(syntax, rest, c);
        let (text, tail) = rest.split_at(len);
        match class {
            Some(class) => {
                out.push_str("<span class=\"hl-");
                out.push_str(class);
                out.push_str("\">");
                super::escape_into(text, &mut out);
                out.push_str("</span>");
            }
            None => super::escape_into(text, &mut out),
        }
        rest = tail;
    }
    Some(out)
}

/// The class and byte length of the token at the start of `rest`, whose first char is `c`.
fn token(syntax: &Syntax, rest: &str, c: char) -> (Option<&'static str>, usize) {
    if syntax.line_comments.iter().any(|p| rest.starts_with(p)) {
        return (Some("c"), rest.find('\n').unwrap_or(rest.len()));
    }
    if let Some((open, close)) = syntax.block_comment
        && rest.starts_with(open)
    {
        let len =
            rest[open.len()..].find(close).map_or(rest.len(), |n| open.len() + n + close.len());
        return (Some("c"), len);
    }
    if syntax.quotes.contains(&c) {
        return (Some("s"), string_len(rest, c));
    }
    if c.is_ascii_digit() {
        let len = rest
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
            .unwrap_or(rest.len());
        return (Some("n"), len);
    }
    if c.is_alphabetic() || c == '_' {
        let len = rest.find(|ch: char| !(ch.is_alphanumeric() || ch == '_')).unwrap_or(rest.len());
        let word = &rest[..len];
        let keyword = if syntax.any_case {
            syntax.keywords.iter().any(|k| k.eq_ignore_ascii_case(word))
        } else {
            syntax.keywords.contains(&word)
        };
        return (keyword.then_some("k"), len);
    }
    (None, c.len_utf8())
}

/// Length of the string literal opening `rest` with `quote`: up to the closing quote (escapes
/// honoured), or the end of the line for an unclosed one (a template literal may span lines).
fn string_len(rest: &str, quote: char) -> usize {
    let mut escaped = false;
    for (i, ch) in rest.char_indices().skip(1) {
        match ch {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '\n' if quote != '`' => return i,
            _ if ch == quote => return i + ch.len_utf8(),
            _ => {}
        }
    }
    rest.len()
}

#[cfg(test)]
#[path = "highlight_tests.rs"]
mod tests;
