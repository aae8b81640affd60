//! `cargo xtask snapshot --url URL [--budget N]`: our snapshot of any page, with its token count
//! (o200k, a real tokenizer) and time, taken by the real executor in headless Chromium with the
//! built test extension (the end-to-end harness: the page opens in a tab, `executor.js` is
//! injected with `chrome.scripting`, and a `snapshot` request goes over `chrome.tabs.sendMessage`
//! as the service worker sends it).

use std::path::Path;

use anyhow::Context;
use anyhow::bail;
use panelot_e2e::executor::ExecutorHarness;
use panelot_e2e::executor::accounted_interactive;

/// Snapshots taken after the first one, for the time's median.
const RUNS: usize = 5;

pub(crate) fn snapshot(root: &Path, url: &str, budget: Option<u32>) -> anyhow::Result<()> {
    // The harness loads the test flavor (`PANELOT_TEST_EXTENSION_DIR`, else
    // dist/extension-test). Without the variable, build it first so that the executor is the
    // current one, then run again with the variable set.
    if std::env::var_os("PANELOT_TEST_EXTENSION_DIR").is_none() {
        let dist = crate::build::build(root, crate::build::Flavor::Test)?;
        crate::tools::ensure_chromium(&xshell::Shell::new()?)?;
        let status = std::process::Command::new(std::env::current_exe()?)
            .args(std::env::args_os().skip(1))
            .env("PANELOT_TEST_EXTENSION_DIR", &dist)
            .status()?;
        if !status.success() {
            bail!("the snapshot failed");
        }
        return Ok(());
    }
    let bpe = tiktoken_rs::o200k_base().context("the o200k tokenizer")?;
    let mut h = ExecutorHarness::launch().context("launching Chromium with the test build")?;
    let tab = h.open_url(url).with_context(|| format!("opening {url}"))?;
    h.inject(tab).context("injecting the executor (pages such as chrome:// refuse it)")?;
    let elements = h.element_count(tab).unwrap_or(0);
    let (first, first_timing) = h.timed_snapshot(tab, budget)?;
    let first_ms = first_timing.round_trip_ms;
    let mut times = Vec::with_capacity(RUNS);
    let mut handled = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let timing = h.timed_snapshot(tab, budget)?.1;
        times.push(timing.round_trip_ms);
        handled.extend(timing.handled_ms);
    }
    times.sort_by(f64::total_cmp);
    handled.sort_by(f64::total_cmp);
    let median = times[RUNS / 2];
    let in_page = handled.get(handled.len() / 2).copied().unwrap_or(f64::NAN);
    let tokens = bpe.encode_ordinary(&first.text).len();
    print!("{}", first.text);
    eprintln!(
        "xtask: {tokens} tokens (o200k; budget {}), {} lines, {} refs, {} interactive accounted for, {} folded regions; {elements} elements; first snapshot {first_ms:.1} ms, median of the next {RUNS} {median:.1} ms (round trips from the extension page), {in_page:.1} ms of them in the page",
        budget.unwrap_or(3_000),
        first.text.lines().count(),
        first.ref_count,
        accounted_interactive(&first.text),
        first.folded_regions,
    );
    Ok(())
}
