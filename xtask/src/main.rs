//! `cargo xtask`: Panelot's build tool.
//!
//! ```text
//! cargo xtask build [--test]         build the extension into dist/extension (--test: the
//!                                   test flavor with test-only exports, dist/extension-test)
//! cargo xtask run                   build, then launch Chromium with the extension
//! cargo xtask test                  everything CI runs
//! cargo xtask bench                 benchmarks (medians printed)
//! cargo xtask snapshot --url URL [--budget N]   our snapshot of a page, its tokens and time
//! cargo xtask protocol [--write]    check (or rewrite) schema hashes and generated TypeScript
//! cargo xtask fuzz [--seconds N] [--target NAME]   run the cargo-fuzz targets on nightly
//! cargo xtask sim [--seeds N | --seed S]            the engine simulation: N seeds, or replay S
//! cargo xtask tidy [--report]       docs, citations, no import cycles in crates/core (--report:
//!                                   print everything, never fail)
//! ```
//!
//! Every command installs what it is missing (the wasm target, the pinned wasm-bindgen, npm
//! packages, Chromium via apt when root) and says so, or names what to install.

mod bench;
mod build;
mod fuzz;
mod icons;
mod protocol;
mod run;
mod sim;
mod snapshot;
mod test;
mod tidy;
mod tools;

use std::path::PathBuf;

use anyhow::Context;
use anyhow::bail;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_else(|| "help".to_owned());
    let rest: Vec<String> = args.collect();
    let root = workspace_root()?;
    std::env::set_current_dir(&root)?;
    match command.as_str() {
        "build" if flag(&rest, "--test") => build::build(&root, build::Flavor::Test).map(|_| ()),
        "build" => build::build_extension(&root).map(|_| ()),
        "run" => run::run(&root),
        "test" => test::test(&root),
        "bench" => bench::bench(&root),
        "protocol" => protocol::protocol(&root, flag(&rest, "--write")),
        "fuzz" => fuzz::fuzz(&root, option(&rest, "--seconds")?, option(&rest, "--target")?),
        "sim" => sim::sim(&root, option(&rest, "--seeds")?, option(&rest, "--seed")?),
        "tidy" => tidy::tidy(&root, flag(&rest, "--report")),
        "snapshot" => match (option(&rest, "--url")?, option(&rest, "--budget")?) {
            (Some(url), budget) => {
                let budget = budget.map(|b| b.parse::<u32>()).transpose().context("--budget N")?;
                snapshot::snapshot(&root, &url, budget)
            }
            (None, _) => bail!("snapshot needs --url URL\n{HELP}"),
        },
        "help" | "--help" | "-h" => {
            eprintln!("{HELP}");
            Ok(())
        }
        other => bail!("unknown command `{other}`\n{HELP}"),
    }
}

const HELP: &str = "usage: cargo xtask <build [--test]|run|test|bench|protocol [--write]|fuzz [--seconds N] [--target NAME]|sim [--seeds N|--seed S]|tidy [--report]|snapshot --url URL [--budget N]>";

fn workspace_root() -> anyhow::Result<PathBuf> {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().map(PathBuf::from).context("xtask has no parent directory")
}

fn flag(args: &[String], name: &str) -> bool {
    args.iter().any(|arg| arg == name)
}

fn option(args: &[String], name: &str) -> anyhow::Result<Option<String>> {
    match args.iter().position(|arg| arg == name) {
        None => Ok(None),
        Some(idx) => match args.get(idx + 1) {
            Some(value) => Ok(Some(value.clone())),
            None => bail!("{name} needs a value"),
        },
    }
}

/// Prints a step of a long command.
fn step(message: &str) {
    eprintln!("xtask: {message}");
}
