//! The conformance corpus: stream transcripts in each vendor's wire format (under
//! `tests/corpus/<endpoint>/`), each replayed whole, byte by byte and in random chunks against
//! its `.expect` file.
//!
//! An `.expect` file starts with `wire: openai|anthropic`, `quirks: <flags>` and `---`, then the
//! rendering of `replay::render`. Run with `PANELOT_BLESS=1` to rewrite the expectations, then
//! review every diff: a blessed file is a claim about vendor behaviour.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::replay::Chunking;
use super::replay::Wire;
use super::replay::replay;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn transcripts() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for endpoint in fs::read_dir(corpus_dir()).expect("corpus dir") {
        let endpoint = endpoint.expect("entry").path();
        if !endpoint.is_dir() {
            continue;
        }
        for file in fs::read_dir(&endpoint).expect("endpoint dir") {
            let path = file.expect("entry").path();
            if path.extension().is_some_and(|ext| ext == "sse") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_transcript_replays_to_its_expectation_in_any_chunking() {
    let bless = std::env::var_os("PANELOT_BLESS").is_some();
    let mut failures = Vec::new();
    for sse in transcripts() {
        let expect_path = sse.with_extension("expect");
        let expect = fs::read_to_string(&expect_path).unwrap_or_default();
        let (header, expected_body) = expect.split_once("---\n").unwrap_or((&expect, ""));
        let field = |name: &str| {
            header
                .lines()
                .find_map(|line| line.strip_prefix(name).map(str::trim))
                .unwrap_or_default()
                .to_owned()
        };
        let wire = Wire::parse(&field("wire:"), &field("quirks:"));
        let body = fs::read(&sse).expect("transcript");
        let whole = replay(wire, &body, Chunking::Whole);
        assert_eq!(replay(wire, &body, Chunking::Bytewise), whole, "{} bytewise", sse.display());
        for seed in 1..=8 {
            assert_eq!(
                replay(wire, &body, Chunking::Random(seed)),
                whole,
                "{} seed {seed}",
                sse.display()
            );
        }
        if bless {
            fs::write(&expect_path, format!("{header}---\n{whole}")).expect("write expectation");
        } else if whole != expected_body {
            failures
                .push(format!("{}:\n--- expected\n{expected_body}--- got\n{whole}", sse.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_corpus_covers_at_least_ten_endpoints() {
    let endpoints: BTreeSet<String> = transcripts()
        .iter()
        .filter_map(|path| path.parent()?.file_name()?.to_str().map(str::to_owned))
        .filter(|name| name != "bad")
        .collect();
    assert!(endpoints.len() >= 10, "{endpoints:?}");
}
