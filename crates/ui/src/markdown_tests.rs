//! Tests of Markdown rendering.

use pretty_assertions::assert_eq;

use super::*;

#[track_caller]
fn check(input: &str, completeness: Completeness, expected: &str) {
    assert_eq!(render(input, completeness, "Copy"), expected);
}

/// A code block as [`render`] writes it: header with the language and the copy button, then the
/// code (`class` is the `<code>` element's attribute, with its leading space).
fn block(lang: &str, class: &str, body: &str) -> String {
    format!(
        "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">{lang}</span><button type=\"button\" class=\"copy-code\"><svg class=\"icon\" aria-hidden=\"true\"><use href=\"#icon-copy\"></use></svg><span class=\"copy-label\">Copy</span></button></div><pre><code{class}>{body}</code></pre></div>\n"
    )
}

#[test]
fn raw_html_from_the_model_is_text() {
    let html = render(
        "hi <img src=x onerror=alert(1)> there\n\n<script>alert(2)</script>\n",
        Completeness::Complete,
        "Copy",
    );
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
}

#[test]
fn dangerous_links_lose_their_target() {
    check(
        "[a](javascript:alert(1)) [b](https://example.com/)",
        Completeness::Complete,
        "<p><a href=\"\">a</a> <a href=\"https://example.com/\">b</a></p>\n",
    );
}

#[test]
fn images_become_links() {
    check(
        "![secret](https://evil.example/?q=data)",
        Completeness::Complete,
        "<p><a href=\"https://evil.example/?q=data\">secret</a></p>\n",
    );
}

#[test]
fn gfm_tables_and_task_lists() {
    let html = render(
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n",
        Completeness::Complete,
        "Copy",
    );
    assert!(html.contains("<table>"), "{html}");
    assert!(html.contains("<td>1</td>"), "{html}");
    assert!(html.contains("<input disabled=\"\" type=\"checkbox\" checked=\"\"/>"), "{html}");
}

#[test]
fn closed_code_block_gets_its_language_and_highlighting() {
    check(
        "```rust\nfn main() {}\n```\n",
        Completeness::Streaming,
        &block("rust", " class=\"language-rust\"", "<span class=\"hl-k\">fn</span> main() {}\n"),
    );
    // A language the highlighter does not know is escaped text, with the same header.
    check(
        "```brainfuck\n+<\n```\n",
        Completeness::Complete,
        &block("brainfuck", " class=\"language-brainfuck\"", "+&lt;\n"),
    );
    // An indented block has no language.
    check("    let x = 1;\n", Completeness::Complete, &block("", "", "let x = 1;\n"));
}

#[test]
fn highlighted_code_cannot_inject_markup() {
    let html = render("```js\n\"</code><img src=x>\"\n```\n", Completeness::Complete, "Copy");
    assert!(!html.contains("<img"), "{html}");
    assert!(html.contains("&lt;/code&gt;"), "{html}");
}

#[test]
fn open_code_block_while_streaming_stays_plain() {
    check(
        "Here:\n\n```rust\nlet x = a < b;\n",
        Completeness::Streaming,
        "<p>Here:</p>\n<pre class=\"streaming\"><code>let x = a &lt; b;\n</code></pre>\n",
    );
}

#[test]
fn open_code_block_once_complete_is_a_code_block() {
    check("```\nx\n", Completeness::Complete, &block("", "", "x\n"));
}

#[test]
fn a_shorter_fence_does_not_close_a_longer_one() {
    assert_eq!(open_fence_start("````\n```\n"), Some(0));
    assert_eq!(open_fence_start("a\n~~~\nb\n~~~\n"), None);
    assert_eq!(open_fence_start("a\n```py\nb\n"), Some(2));
    assert_eq!(open_fence_start("inline ``` not a fence\n"), None);
}

#[test]
fn code_fence_info_strings_and_autolinks_cannot_inject_markup() {
    let html =
        render("```x\"><img src=1 onerror=alert(1)>\ncode\n```\n", Completeness::Complete, "Copy");
    assert!(!html.contains("<img"), "{html}");
    // The label is the page's, but escaped all the same.
    let html = render("```\nx\n```\n", Completeness::Complete, "<b>Copy</b>");
    assert!(html.contains("&lt;b&gt;Copy&lt;/b&gt;") && !html.contains("<b>"), "{html}");
    check(
        "<javascript:alert(1)>",
        Completeness::Complete,
        "<p><a href=\"\">javascript:alert(1)</a></p>\n",
    );
}
