//! `cargo xtask tidy`: checks that hold the repository's shape.
//!
//! * **Docs**: every Rust file of the workspace crates (`src`, `tests`, `benches`) and of xtask
//!   opens with a `//!` doc, and a crate root's doc names each `pub mod` it declares (as `x`,
//!   [`x`] or a path starting with `x::`), so crate docs stay current.
//! * **Citations**: no comment (Rust, fuzz targets included) or Markdown file cites what a reader
//!   of the repository does not have: a numbered section of the reference, an issue number, the
//!   session's seeds, the shared folder beside the checkout. A section of a public standard (RFC,
//!   CSS, HTML) may be cited; so may an issue given with its github.com address.
//! * **Imports**: `crates/core` has no import cycle ([`imports`]); its graph is printed.
//!
//! `cargo xtask tidy` fails on any finding; `--report` prints the same and exits 0. `cargo xtask
//! test` runs the same checks ([`check`]) without printing the graph.

mod imports;
mod lex;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;
use anyhow::bail;

/// Directories never searched: build output, dependencies, fuzzing data.
const SKIP_DIRS: &[&str] =
    &[".git", "target", "node_modules", "dist", "test-artifacts", "corpus", "artifacts"];

/// Text that cites a document a reader does not have, and whether a digit must follow it.
const CITATIONS: &[(&str, bool)] = &[
    ("reference §", false),
    ("§", true),
    ("issue ", true),
    ("issue #", true),
    ("issues ", true),
    ("seed 000", false),
    ("seeds/", false),
    ("spec/panelot-reference", false),
    ("../shared", false),
];

/// Public standards a section sign may follow: a section is excused when the nearest document
/// named before it on its line is one of these rather than one of [`PRIVATE_DOCUMENTS`].
const STANDARDS: &[&str] = &["rfc ", "css ", "html ", "ecma", "whatwg", "unicode"];
const PRIVATE_DOCUMENTS: &[&str] = &["reference", "issue"];

/// The crate whose modules may not import each other in a cycle.
const ACYCLIC_CRATE: &str = "crates/core/src";

/// One problem: where, and the offending text or what is missing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    file: PathBuf,
    line: usize,
    text: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file.display(), self.line, self.text)
    }
}

/// Runs every check and prints its findings and the import graph; fails on any unless `report`.
pub(crate) fn tidy(root: &Path, report: bool) -> anyhow::Result<()> {
    run(root, report, true)
}

/// Runs every check and prints its findings, not the graph; fails on any.
pub(crate) fn check(root: &Path) -> anyhow::Result<()> {
    run(root, false, false)
}

fn run(root: &Path, report: bool, print_graph: bool) -> anyhow::Result<()> {
    let rust = read_tree(root, "rs")?;
    let markdown = read_tree(root, "md")?;
    let mut failures = 0;
    let mut section = |title: &str, findings: Vec<Finding>| {
        println!("tidy: {title}: {}", if findings.is_empty() { "ok" } else { "FAILED" });
        for finding in &findings {
            println!("  {finding}");
        }
        failures += findings.len();
    };
    section("`//!` docs and crate docs", missing_docs(&rust));
    let mut cited: Vec<Finding> =
        rust.iter().flat_map(|(p, text)| rust_citations(p, text)).collect();
    cited.extend(markdown.iter().flat_map(|(p, text)| markdown_citations(p, text)));
    section("citations of documents not in the repository", cited);

    let core: BTreeMap<PathBuf, String> =
        rust.into_iter().filter(|(path, _)| path.starts_with(ACYCLIC_CRATE)).collect();
    let graph = imports::Graph::build(&core, &Path::new(ACYCLIC_CRATE).join("lib.rs"))?;
    let missing = graph.missing.iter().map(|(file, line, path)| Finding {
        file: file.clone(),
        line: *line,
        text: format!("no module file {}", path.display()),
    });
    section("module files of crates/core", missing.collect());
    let cycles = graph.cycles();
    println!(
        "tidy: import cycles in {ACYCLIC_CRATE}: {}",
        if cycles.is_empty() { "none" } else { "FAILED" }
    );
    for cycle in &cycles {
        print!("{}", graph.render_cycle(cycle));
    }
    if print_graph {
        println!("tidy: import graph of {ACYCLIC_CRATE} (module -> modules it names)");
        print!("{}", graph.render());
    }
    failures += cycles.len();

    if failures > 0 && !report {
        bail!("tidy: {failures} problems (listed above)");
    }
    Ok(())
}

/// Files with this extension under `root`, outside [`SKIP_DIRS`], with paths relative to it.
fn read_tree(root: &Path, ext: &str) -> anyhow::Result<Vec<(PathBuf, String)>> {
    let mut found = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(root.join(&dir))
            .with_context(|| format!("reading {}", root.join(&dir).display()))?;
        for entry in entries {
            let entry = entry?;
            let path = dir.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                if !SKIP_DIRS.iter().any(|skip| entry.file_name() == *skip) {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == ext) {
                let text = std::fs::read_to_string(root.join(&path))
                    .with_context(|| format!("reading {}", path.display()))?;
                found.push((path, text));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Files without a `//!` doc, and crate roots whose doc misses a `pub mod`.
fn missing_docs(files: &[(PathBuf, String)]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (path, text) in files {
        let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
        if !matches!(
            parts.as_slice(),
            ["crates", _, "src" | "tests" | "benches", ..] | ["xtask", "src", ..]
        ) {
            continue;
        }
        let mut lines = text.lines().skip_while(|line| line.trim().is_empty()).peekable();
        let included = lines.peek().is_some_and(|line| line.starts_with("#![doc"));
        let doc: Vec<&str> = lines.take_while(|line| line.starts_with("//!")).collect();
        let finding = |line, text: String| Finding { file: path.clone(), line, text };
        if doc.is_empty() && !included {
            findings.push(finding(1, "no `//!` doc at the top of the file".to_owned()));
        }
        if !matches!(parts.last(), Some(&("lib.rs" | "main.rs"))) || included {
            continue;
        }
        let doc = doc.concat();
        let mut test_only = false;
        for (n, line) in text.lines().enumerate() {
            if let Some(name) =
                line.strip_prefix("pub mod ").map(|r| r.trim_end_matches([';', '{', ' ']))
                && !test_only
                && !doc.contains(&format!("`{name}`"))
                && !doc.contains(&format!("`{name}::"))
            {
                findings
                    .push(finding(n + 1, format!("the crate doc does not name `pub mod {name}`")));
            }
            test_only = line.trim() == "#[cfg(test)]";
        }
    }
    findings
}

/// Comments of a Rust file that cite documents not in the repository.
fn rust_citations(path: &Path, text: &str) -> Vec<Finding> {
    let comments = lex::lex(text).comments;
    let cited = comments.into_iter().filter(|(_, comment)| cites(comment));
    cited
        .map(|(line, text)| Finding { file: path.to_owned(), line, text: text.trim().to_owned() })
        .collect()
}

/// Lines of a Markdown file that cite documents not in the repository.
fn markdown_citations(path: &Path, text: &str) -> Vec<Finding> {
    let cited = text.lines().enumerate().filter(|(_, line)| cites(line));
    cited
        .map(|(n, line)| Finding {
            file: path.to_owned(),
            line: n + 1,
            text: line.trim().to_owned(),
        })
        .collect()
}

/// Whether a line cites a document a reader of the repository does not have.
fn cites(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    CITATIONS.iter().any(|&(needle, digit)| {
        lower.match_indices(needle).any(|(at, _)| {
            let next = lower[at + needle.len()..].chars().next();
            (!digit || next.is_some_and(|c| c.is_ascii_digit())) && !excused(&lower, needle, at)
        })
    })
}

/// A section of a public standard, or an issue given with its address, is a fine citation.
fn excused(lower: &str, needle: &str, at: usize) -> bool {
    let before = &lower[..at];
    let last = |words: &[&str]| words.iter().filter_map(|word| before.rfind(word)).max();
    match needle {
        "§" => last(STANDARDS) > last(PRIVATE_DOCUMENTS),
        _ if needle.starts_with("issue") => lower.contains("github.com/"),
        _ => false,
    }
}

#[cfg(test)]
#[path = "tidy_tests.rs"]
mod tests;
