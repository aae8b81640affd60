//! Tests of the code highlighter.

use pretty_assertions::assert_eq;

use super::*;

#[track_caller]
fn check(lang: &str, code: &str, expect: &str) {
    assert_eq!(highlight(code, lang).as_deref(), Some(expect));
}

#[test]
fn tokens_get_their_classes() {
    check(
        "rust",
        "fn main() { let x = 42; } // done",
        "<span class=\"hl-k\">fn</span> main() { <span class=\"hl-k\">let</span> x = \
         <span class=\"hl-n\">42</span>; } <span class=\"hl-c\">// done</span>",
    );
    check(
        "py",
        "def f(): return 'a\\'b' # c",
        "<span class=\"hl-k\">def</span> f(): <span class=\"hl-k\">return</span> <span class=\"hl-s\">&#39;a\\&#39;b&#39;</span> <span class=\"hl-c\"># c</span>",
    );
    check(
        "sql",
        "SELECT a FROM t",
        "<span class=\"hl-k\">SELECT</span> a <span class=\"hl-k\">FROM</span> t",
    );
    check("js", "/* a */x1", "<span class=\"hl-c\">/* a */</span>x1");
}

#[test]
fn markup_in_code_is_escaped_and_unclosed_tokens_stop_sanely() {
    check("js", "\"<b>\n<i>", "<span class=\"hl-s\">&quot;&lt;b&gt;</span>\n&lt;i&gt;");
    check("c", "/* open <", "<span class=\"hl-c\">/* open &lt;</span>");
    check("rust", "'a: é", "&#39;a: é");
}

#[test]
fn unknown_languages_stay_plain() {
    assert_eq!(highlight("x", "brainfuck"), None);
    assert_eq!(highlight("x", ""), None);
}
