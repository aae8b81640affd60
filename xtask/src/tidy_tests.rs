//! Tests of the tidy checks on small in-memory fixtures.

use std::collections::BTreeMap;
use std::path::Path;
use std::path::PathBuf;

use super::imports::Graph;
use super::lex::Tok;
use super::lex::lex;
use super::*;

/// The graph of a crate made of `(path, source)` files whose root is `src/lib.rs`.
fn graph(files: &[(&str, &str)]) -> Graph {
    let files: BTreeMap<PathBuf, String> =
        files.iter().map(|(path, text)| (PathBuf::from(path), (*text).to_owned())).collect();
    match Graph::build(&files, Path::new("src/lib.rs")) {
        Ok(graph) => graph,
        Err(error) => panic!("{error:#}"),
    }
}

fn lines(findings: &[Finding]) -> Vec<String> {
    findings.iter().map(ToString::to_string).collect()
}

#[test]
fn comments_and_strings_are_told_apart() {
    let lexed = lex(concat!(
        "let a = \"// not a comment §5\"; // one\n",
        "let b = r#\"\"quoted\" /* no */\"#; let c = '\"'; let d: &'static str = b\"x\";\n",
        "/* two /* nested */\n still two */ fn f<'a>(x: &'a u8) -> char { '\\'' }\n",
        "let e = r#type; // three\n",
    ));
    let comments: Vec<(usize, &str)> =
        lexed.comments.iter().map(|(line, text)| (*line, text.as_str())).collect();
    assert_eq!(
        comments,
        [(1, "// one"), (3, "/* two /* nested */"), (4, " still two */"), (5, "// three")]
    );
    let strings: Vec<&Tok> =
        lexed.tokens.iter().map(|t| &t.tok).filter(|t| matches!(t, Tok::Str(_))).collect();
    assert_eq!(
        strings,
        [
            &Tok::Str("// not a comment §5".to_owned()),
            &Tok::Str("\"quoted\" /* no */".to_owned()),
            &Tok::Str("x".to_owned()),
        ]
    );
    assert!(lexed.tokens.iter().any(|t| t.tok == Tok::Ident("type".to_owned()) && t.line == 5));
}

#[test]
fn a_file_without_a_module_doc_is_found() {
    let files = [
        (
            PathBuf::from("crates/a/src/lib.rs"),
            "//! Crate a: see [`good`].\npub mod good;\n".into(),
        ),
        (PathBuf::from("crates/a/src/good.rs"), "\n//! Good.\nfn f() {}\n".into()),
        (PathBuf::from("crates/a/tests/bad.rs"), "// A plain comment.\nfn f() {}\n".into()),
        (PathBuf::from("xtask/src/bad.rs"), "use std::fs;\n".into()),
        (PathBuf::from("fuzz/fuzz_targets/free.rs"), "fn f() {}\n".into()),
    ];
    assert_eq!(
        lines(&missing_docs(&files)),
        [
            "crates/a/tests/bad.rs:1: no `//!` doc at the top of the file",
            "xtask/src/bad.rs:1: no `//!` doc at the top of the file",
        ]
    );
}

#[test]
fn a_public_module_the_crate_doc_does_not_name_is_found() {
    let lib = "//! The crate: [`named`] and `pathed::Thing`.\n\npub mod named;\npub mod pathed;\n\
               pub mod forgotten;\nmod private;\n#[cfg(test)]\npub mod test_only;\n";
    let files = [(PathBuf::from("crates/a/src/lib.rs"), lib.to_owned())];
    assert_eq!(
        lines(&missing_docs(&files)),
        ["crates/a/src/lib.rs:5: the crate doc does not name `pub mod forgotten`"]
    );
}

#[test]
fn citations_in_comments_are_found_and_string_literals_are_not() {
    let source = "//! Rules (reference §6.3).\n\
                  /// Deadline of a call (issue 7, item 2).\n\
                  const A: &str = \"reference §6.3 and issue 7\";\n\
                  // As in RFC 9110 §5.6.7; see serde-rs/serde#2123.\n\
                  // https://github.com/rust-lang/rust/issues/1 (issue #1)\n\
                  /* from ../shared/spec */\n\
                  // An issue 7 ways off is still an issue 7.\n";
    assert_eq!(
        lines(&rust_citations(Path::new("a.rs"), source)),
        [
            "a.rs:1: //! Rules (reference §6.3).",
            "a.rs:2: /// Deadline of a call (issue 7, item 2).",
            "a.rs:6: /* from ../shared/spec */",
            "a.rs:7: // An issue 7 ways off is still an issue 7.",
        ]
    );
}

#[test]
fn citations_in_markdown_are_found() {
    let text =
        "# Title\n\nSee §5.1 of the spec.\nThe CSS Display §2.7 rule.\nSeeds in seeds/0001.\n";
    assert_eq!(
        lines(&markdown_citations(Path::new("README.md"), text)),
        ["README.md:3: See §5.1 of the spec.", "README.md:5: Seeds in seeds/0001."]
    );
}

#[test]
fn a_cycle_is_found_with_the_references_that_make_it() {
    let graph = graph(&[
        ("src/lib.rs", "//! Root.\nmod a;\nmod b;\nmod c;\n"),
        ("src/a.rs", "use crate::b::Thing;\n"),
        ("src/b.rs", "fn f() {\n    crate::a::g();\n    crate::c::h();\n}\n"),
        ("src/c.rs", "pub fn h() {}\n"),
    ]);
    assert_eq!(graph.cycles().len(), 1);
    assert_eq!(
        graph.render_cycle(&graph.cycles()[0]),
        "import cycle: a, b\n  a -> b  (src/a.rs:1)\n  b -> a  (src/b.rs:2)\n"
    );
    assert_eq!(graph.render(), "a -> b\nb -> a, c\nc -> -\ncrate -> -\n");
}

#[test]
fn a_child_naming_its_parent_is_an_edge_and_declaring_a_module_is_not() {
    let graph = graph(&[
        ("src/lib.rs", "mod engine;\n"),
        ("src/engine.rs", "pub mod approvals;\npub struct Engine;\n"),
        ("src/engine/approvals.rs", "use super::Engine;\n"),
    ]);
    assert!(graph.has_edge("engine::approvals", "engine"));
    assert!(!graph.has_edge("engine", "engine::approvals"));
    assert!(!graph.has_edge("crate", "engine"));
    assert!(graph.cycles().is_empty());
}

#[test]
fn paths_resolve_to_the_deepest_module_they_name() {
    let graph = graph(&[
        ("src/lib.rs", "pub mod a;\npub mod b;\n"),
        ("src/a.rs", "pub mod deep;\nmod inner {\n    fn f() { super::super::b::x(); }\n}\n"),
        ("src/a/deep.rs", "pub(crate) fn g() {}\npub(in crate::b) fn h() {}\n"),
        (
            "src/b.rs",
            "pub mod leaf;\nuse crate::a::{self, deep::Thing as Other};\n\
             fn f() { self::leaf::run(); let s = self.x; a::deep::g(); }\n",
        ),
        ("src/b/leaf.rs", "fn f() { use super::super::a::deep; deep::g(); }\n"),
    ]);
    assert_eq!(graph.names(), ["crate", "a", "a::deep", "a::inner", "b", "b::leaf"]);
    assert!(graph.has_edge("a::inner", "b"), "super::super from an inline module");
    assert!(graph.has_edge("b", "a"), "`use crate::a::{{self, ..}}`");
    assert!(graph.has_edge("b", "a::deep"), "through the module `a` brought in");
    assert!(graph.has_edge("b", "b::leaf"), "self::child");
    assert!(graph.has_edge("b::leaf", "a::deep"), "a use inside a function body");
    assert!(!graph.has_edge("a::deep", "crate"), "`pub(crate)` is no reference");
    assert!(!graph.has_edge("a::deep", "b"), "`pub(in crate::b)` is no reference");
}

#[test]
fn test_only_modules_are_left_out() {
    let graph = graph(&[
        (
            "src/lib.rs",
            "mod a;\nmod b;\n#[cfg(test)]\nmod sim;\n#[cfg(any(test, feature = \"x\"))]\nmod kit;\n",
        ),
        ("src/kit.rs", "use crate::a::f;\n"),
        ("src/a.rs", "pub fn f() {}\n#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n"),
        ("src/a_tests.rs", "use crate::b::g;\n"),
        (
            "src/b.rs",
            "use super::a::f;\n#[cfg(test)]\nmod tests {\n    use crate::a::f;\n}\n\
             #[cfg(test)]\nuse crate::sim::World;\n#[path = \"b_extra.rs\"]\nmod extra;\n",
        ),
        ("src/b_extra.rs", "fn f() { crate::a::f(); }\n"),
    ]);
    assert_eq!(graph.names(), ["crate", "a", "b", "b::extra", "kit"]);
    assert!(graph.has_edge("kit", "a"), "a module built for tests and a feature is kept");
    assert!(graph.has_edge("b", "a"));
    assert!(graph.has_edge("b::extra", "a"), "a #[path] module that is not a test");
    assert!(!graph.has_edge("a", "b"), "the test file's use");
    assert!(graph.cycles().is_empty());
}

#[test]
fn a_module_without_its_file_is_reported() {
    let graph = graph(&[("src/lib.rs", "//! Root.\n\nmod gone;\n")]);
    assert_eq!(graph.missing, [(PathBuf::from("src/lib.rs"), 3, PathBuf::from("src/gone.rs"))]);
}
