//! Snapshot tokens and time over a corpus of fixture pages (small task pages, a 40,000-element
//! catalog and a 50,000-element documentation page), with the real executor in headless
//! Chromium: per page the elements, the tokens of a snapshot at the default budget (o200k, a real
//! tokenizer), the median time of several snapshots in the page (the executor's own, as it
//! reports it) and their round trip from the extension page (which adds the message hop), and
//! the interactive elements the snapshot accounts for (listed or
//! counted in folded lines) against those the page has. Printed by `cargo xtask bench`.
//!
//! `PANELOT_CORPUS_DIR=<dir>` also writes the corpus pages there (to compare other tools on the
//! same pages), and each page's last snapshot beside it (`<page>.snapshot.txt`).
//!
//! Against Playwright MCP: `benches/playwright-mcp/<page>.txt` holds the text of its
//! `browser_snapshot` result for the small pages (what its server sends the model: the page's
//! URL and title, then the snapshot), taken once with `benches/playwright-mcp/snapshots.mjs`
//! (it needs the npm package, so not at bench time); the bench prints our tokens over its per
//! page and their median. Take them again when a small page's HTML changes.

// A benchmark of a setup it controls: failing loudly is the point.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::print_stdout)]

use std::path::PathBuf;

use panelot_e2e::executor::ExecutorHarness;
use panelot_e2e::executor::accounted_interactive;
use panelot_e2e::executor::corpus;
use panelot_e2e::executor::refs_in;
use panelot_testkit::fixture_site::FixtureSite;
use serde_json::json;

const RUNS: usize = 9;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let pages = corpus();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let site = FixtureSite::start(root).expect("start the fixture site");
    if let Some(dir) = std::env::var_os("PANELOT_CORPUS_DIR") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("create the corpus directory");
        for page in &pages {
            std::fs::write(dir.join(format!("{}.html", page.name)), &page.html)
                .expect("write a corpus page");
        }
    }
    let bpe = tiktoken_rs::o200k_base().expect("the o200k tokenizer");
    let mut h = ExecutorHarness::launch().expect("launch Chromium with the test build");
    let mut small_tokens = Vec::new();
    let mut small_in_page = Vec::new();
    let mut small_without_hop = Vec::new();
    let mut small_ratios = Vec::new();
    let playwright = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/playwright-mcp");
    for page in &pages {
        let path = format!("/corpus/{}.html", page.name);
        site.add_page(&path, page.html.clone());
        let tab = h.open_tab(&site.url(&path)).expect("open the page");
        h.inject(tab).expect("inject the executor");
        let elements = h.element_count(tab).expect("count the elements");
        // The first snapshot also compiles the executor's code: not counted.
        h.timed_snapshot(tab, None).expect("snapshot");
        let mut round_trips = Vec::new();
        let mut in_page = Vec::new();
        let mut text = String::new();
        for _ in 0..RUNS {
            let (snap, timing) = h.timed_snapshot(tab, None).expect("snapshot");
            round_trips.push(timing.round_trip_ms);
            in_page.push(timing.handled_ms.expect("the executor reports its time"));
            text = snap.text;
        }
        // The message hop alone: a call that does next to nothing in the page.
        let hop = median(
            (0..RUNS)
                .map(|_| {
                    let call = json!({"tool": "validate_ref", "params": {"ref": "e1"}});
                    h.timed_call(tab, call).expect("validate_ref").1.round_trip_ms
                })
                .collect(),
        );
        // Same-site tabs share a renderer and its heap: a closed page's executor and nodes do
        // not weigh on the next page's collections.
        h.close_tab(tab).expect("close the page");
        if let Some(dir) = std::env::var_os("PANELOT_CORPUS_DIR") {
            let path = PathBuf::from(dir).join(format!("{}.snapshot.txt", page.name));
            std::fs::write(path, &text).expect("write the snapshot");
        }
        let tokens = bpe.encode_ordinary(&text).len();
        let accounted = accounted_interactive(&text);
        // What the budget bought: lines that fold something away say only how much they hide.
        let fold_tokens: usize = text
            .lines()
            .filter(|line| line.contains("[folded "))
            .map(|line| bpe.encode_ordinary(&format!("{line}\n")).len())
            .sum();
        let listed = refs_in(&text).len();
        // Refs of elements on lines of their own: a fold line's ref (often the same parent's,
        // repeated on every `more` line) names a region to expand, not an element to act on.
        let mut element_refs: Vec<String> = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.contains("[folded "))
            .flat_map(refs_in)
            .collect();
        element_refs.sort_unstable();
        element_refs.dedup();
        let (round_trip, in_page) = (median(round_trips), median(in_page));
        let versus = std::fs::read_to_string(playwright.join(format!("{}.txt", page.name)))
            .ok()
            .map(|theirs| {
                let theirs = bpe.encode_ordinary(&theirs).len();
                let ratio = tokens as f64 / theirs as f64;
                small_ratios.push(ratio);
                format!("; Playwright MCP {theirs} tokens, {ratio:.2} x")
            })
            .unwrap_or_default();
        if page.small {
            small_tokens.push(tokens as f64);
            small_in_page.push(in_page);
            small_without_hop.push(round_trip - hop);
        }
        println!(
            "executor: snapshot {:<12} {elements:>6} elements {tokens:>5} tokens (o200k, budget 3,000) {in_page:>6.1} ms in the page, {round_trip:>6.1} ms round trip ({hop:.1} ms message hop); {listed} refs listed ({} on element lines), fold lines {:.0} % of the tokens; interactive {accounted}/{} {}{versus}",
            page.name,
            element_refs.len(),
            fold_tokens as f64 * 100.0 / tokens.max(1) as f64,
            page.interactive,
            if accounted == page.interactive { "ok" } else { "MISMATCH" },
        );
    }
    println!(
        "executor: snapshot small pages: median {:.0} tokens, {:.3} x Playwright MCP's, {:.1} ms in the page, {:.1} ms round trip without the hop (targets: <= 0.5 x Playwright MCP's tokens, <= 2 ms in the page; 50,000 elements: within the budget, <= 150 ms; medians of {RUNS})",
        median(small_tokens),
        if small_ratios.is_empty() { f64::NAN } else { median(small_ratios) },
        median(small_in_page),
        median(small_without_hop)
    );
}
