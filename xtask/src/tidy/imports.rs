//! The import graph of one crate, for the rule that its modules have no import cycles.
//!
//! A node per module, found by following `mod` declarations (inline ones and `#[path]`
//! attributes included) from the crate root; modules under `#[cfg(test)]` and files ending in
//! `_tests.rs` are left out, and so are their contents. An edge A -> B when A names an item of B
//! through a path: a `use` (anywhere, function bodies included) or a qualified path in code
//! (`crate::b::f`, `super::x::y`, `child::item`, or a path through a module a `use` brought in).
//! The edge goes to the deepest module the path names, never to the item. Declaring `mod child;`
//! is not an edge. Any strongly connected component of more than one module is a cycle.

use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::path::Path;
use std::path::PathBuf;

use anyhow::Context;

use super::lex::Tok;
use super::lex::Token;
use super::lex::lex;

/// A crate's modules and the references between them.
#[derive(Debug)]
pub(crate) struct Graph {
    modules: Vec<Module>,
    /// Each edge with the first place that makes it (file, line).
    edges: BTreeMap<(usize, usize), (PathBuf, usize)>,
    /// `mod` declarations whose file does not exist: (declaring file, line, missing path).
    pub(crate) missing: Vec<(PathBuf, usize, PathBuf)>,
}

/// One module; index 0 is the crate root.
#[derive(Debug)]
struct Module {
    /// `crate` for the root, else the path from it (`engine::approvals`).
    name: String,
    parent: Option<usize>,
    file: PathBuf,
    /// Declared children; `None` for a test-only one, which paths may not resolve into.
    children: BTreeMap<String, Option<usize>>,
    uses: Vec<UsePath>,
    /// Qualified paths in code, with their lines.
    paths: Vec<(Vec<String>, usize)>,
}

/// One leaf of a `use` tree.
#[derive(Debug)]
struct UsePath {
    path: Vec<String>,
    glob: bool,
    /// The name it binds (the last segment or its `as` rename).
    alias: Option<String>,
    line: usize,
}

/// A `mod` declaration.
#[derive(Debug)]
struct ModDecl {
    name: String,
    line: usize,
    test: bool,
    path_attr: Option<String>,
    /// The tokens of an inline module's body.
    body: Option<Vec<Token>>,
}

/// What one module's own tokens declare and name (inline child modules are scanned apart).
#[derive(Debug, Default)]
struct Scan {
    mods: Vec<ModDecl>,
    uses: Vec<UsePath>,
    paths: Vec<(Vec<String>, usize)>,
}

impl Graph {
    /// Builds the graph of the crate whose root file is `root`, reading module files from `files`
    /// (keyed by path, as `root` is).
    pub(crate) fn build(files: &BTreeMap<PathBuf, String>, root: &Path) -> anyhow::Result<Graph> {
        let text = files.get(root).with_context(|| format!("no crate root {}", root.display()))?;
        let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
        let mut graph = Graph { modules: Vec::new(), edges: BTreeMap::new(), missing: Vec::new() };
        graph.add("crate".to_owned(), None, root, dir, &lex(text).tokens, files);
        graph.link();
        Ok(graph)
    }

    fn add(
        &mut self,
        name: String,
        parent: Option<usize>,
        file: &Path,
        dir: PathBuf,
        tokens: &[Token],
        files: &BTreeMap<PathBuf, String>,
    ) -> usize {
        let scan = scan(tokens);
        let idx = self.modules.len();
        let prefix = if parent.is_none() { String::new() } else { format!("{name}::") };
        self.modules.push(Module {
            name,
            parent,
            file: file.to_path_buf(),
            children: BTreeMap::new(),
            uses: scan.uses,
            paths: scan.paths,
        });
        for decl in scan.mods {
            let child_name = format!("{prefix}{}", decl.name);
            let child = match (decl.test, decl.body, decl.path_attr) {
                (true, _, _) => None,
                (false, Some(body), _) => {
                    Some(self.add(child_name, Some(idx), file, dir.join(&decl.name), &body, files))
                }
                (false, None, path_attr) => {
                    let (path, child_dir) = match path_attr {
                        Some(relative) => {
                            let path = file.parent().unwrap_or(Path::new("")).join(relative);
                            let child_dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
                            (path, child_dir)
                        }
                        None => {
                            let child_dir = dir.join(&decl.name);
                            let nested = child_dir.join("mod.rs");
                            match files.contains_key(&nested) {
                                true => (nested, child_dir),
                                false => (dir.join(format!("{}.rs", decl.name)), child_dir),
                            }
                        }
                    };
                    match files.get(&path) {
                        _ if path.to_string_lossy().ends_with("_tests.rs") => None,
                        Some(text) => {
                            let tokens = lex(text).tokens;
                            Some(self.add(child_name, Some(idx), &path, child_dir, &tokens, files))
                        }
                        None => {
                            self.missing.push((file.to_path_buf(), decl.line, path));
                            None
                        }
                    }
                }
            };
            self.modules[idx].children.insert(decl.name, child);
        }
        idx
    }

    /// Resolves every module's paths into edges.
    fn link(&mut self) {
        let mut edges = BTreeMap::new();
        for (m, module) in self.modules.iter().enumerate() {
            // Names a `use` binds to a module, and a glob's modules, resolve like children do.
            let mut aliases = BTreeMap::new();
            for used in &module.uses {
                let Some((target, true)) = self.resolve(m, &used.path, &aliases) else { continue };
                if used.glob {
                    for (name, child) in &self.modules[target].children {
                        if let Some(child) = child {
                            aliases.entry(name.clone()).or_insert(*child);
                        }
                    }
                } else if let Some(alias) = &used.alias {
                    aliases.insert(alias.clone(), target);
                }
            }
            let uses = module.uses.iter().map(|used| (&used.path, used.line));
            for (path, line) in uses.chain(module.paths.iter().map(|(path, line)| (path, *line))) {
                if let Some((target, _)) = self.resolve(m, path, &aliases)
                    && target != m
                {
                    edges.entry((m, target)).or_insert_with(|| (module.file.clone(), line));
                }
            }
        }
        self.edges = edges;
    }

    /// The deepest module `path` names from module `from`, and whether every segment was a
    /// module; `None` when the path leaves the graph (another crate, a local item or variable, a
    /// test-only module).
    fn resolve(
        &self,
        from: usize,
        path: &[String],
        aliases: &BTreeMap<String, usize>,
    ) -> Option<(usize, bool)> {
        let (first, rest) = path.split_first()?;
        let mut at = match first.as_str() {
            "crate" => 0,
            "super" => self.modules[from].parent.unwrap_or(0),
            "self" => from,
            name => match self.modules[from].children.get(name) {
                Some(child) => (*child)?,
                None => *aliases.get(name)?,
            },
        };
        for segment in rest {
            at = match segment.as_str() {
                "super" => self.modules[at].parent.unwrap_or(0),
                "self" => at,
                name => match self.modules[at].children.get(name) {
                    Some(child) => (*child)?,
                    None => return Some((at, false)),
                },
            };
        }
        Some((at, true))
    }

    /// The modules of every import cycle (strongly connected component of more than one
    /// module), each sorted by name.
    pub(crate) fn cycles(&self) -> Vec<Vec<usize>> {
        let reach: Vec<BTreeSet<usize>> =
            (0..self.modules.len()).map(|m| self.reachable(m)).collect();
        let mut placed = BTreeSet::new();
        let mut cycles = Vec::new();
        for a in 0..self.modules.len() {
            if placed.contains(&a) {
                continue;
            }
            let mut scc: Vec<usize> = (0..self.modules.len())
                .filter(|&b| b == a || (reach[a].contains(&b) && reach[b].contains(&a)))
                .collect();
            placed.extend(scc.iter().copied());
            if scc.len() > 1 {
                scc.sort_by_key(|&m| &self.modules[m].name);
                cycles.push(scc);
            }
        }
        cycles
    }

    fn targets(&self, m: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges.range((m, 0)..(m + 1, 0)).map(|(&(_, to), _)| to)
    }

    fn reachable(&self, from: usize) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(m) = stack.pop() {
            for to in self.targets(m) {
                if seen.insert(to) {
                    stack.push(to);
                }
            }
        }
        seen
    }

    /// A cycle's edges, one line each with the first reference that makes it.
    pub(crate) fn render_cycle(&self, scc: &[usize]) -> String {
        let names: Vec<&str> = scc.iter().map(|&m| self.modules[m].name.as_str()).collect();
        let mut out = format!("import cycle: {}\n", names.join(", "));
        for (&(from, to), (file, line)) in &self.edges {
            if scc.contains(&from) && scc.contains(&to) {
                let (from, to) = (&self.modules[from].name, &self.modules[to].name);
                out.push_str(&format!("  {from} -> {to}  ({}:{line})\n", file.display()));
            }
        }
        out
    }

    /// The whole graph, one line per module sorted by name: `engine::runs -> store, tools`.
    pub(crate) fn render(&self) -> String {
        let mut lines: Vec<String> = (0..self.modules.len())
            .map(|m| {
                let mut targets: Vec<&str> =
                    self.targets(m).map(|to| self.modules[to].name.as_str()).collect();
                targets.sort_unstable();
                let targets = if targets.is_empty() { "-".to_owned() } else { targets.join(", ") };
                format!("{} -> {targets}\n", self.modules[m].name)
            })
            .collect();
        lines.sort();
        lines.concat()
    }

    /// Whether `from` names `to`, by module names (for tests).
    #[cfg(test)]
    pub(crate) fn has_edge(&self, from: &str, to: &str) -> bool {
        let index = |name: &str| self.modules.iter().position(|m| m.name == name);
        matches!((index(from), index(to)), (Some(a), Some(b)) if self.edges.contains_key(&(a, b)))
    }

    /// Module names (for tests).
    #[cfg(test)]
    pub(crate) fn names(&self) -> Vec<&str> {
        self.modules.iter().map(|m| m.name.as_str()).collect()
    }
}

/// Scans one module's tokens for `mod` declarations, `use` trees and qualified paths, skipping
/// items under `#[cfg(test)]` and the bodies of inline child modules.
fn scan(t: &[Token]) -> Scan {
    let mut scan = Scan::default();
    let (mut test, mut path_attr) = (false, None);
    let mut i = 0;
    while i < t.len() {
        let line = t[i].line;
        match (&t[i].tok, t.get(i + 1).map(|n| &n.tok)) {
            (Tok::Punct('#'), Some(Tok::Punct('[' | '!'))) => {
                let open = if t[i + 1].tok == Tok::Punct('!') { i + 2 } else { i + 1 };
                let close = matching(t, open);
                let attr = &t[(open + 1).min(close)..close];
                match attr.first().map(|a| &a.tok) {
                    Some(Tok::Ident(name)) if name == "cfg" && open == i + 1 => {
                        // Only a plain `cfg(test)`: `any(test, feature = …)` is built for others.
                        let words = [ident("cfg"), Tok::Punct('('), ident("test"), Tok::Punct(')')];
                        test |= attr.iter().map(|a| &a.tok).eq(words.iter());
                    }
                    Some(Tok::Ident(name)) if name == "path" => {
                        if let Some(Token { tok: Tok::Str(path), .. }) = attr.get(2) {
                            path_attr = Some(path.clone());
                        }
                    }
                    _ => {}
                }
                i = close + 1;
                if test && !matches!(t.get(i).map(|n| &n.tok), Some(Tok::Punct('#'))) {
                    let end = item_end(t, i);
                    if let Some(k) = (i..end).find(|&k| t[k].tok == ident("mod"))
                        && let Some(Tok::Ident(name)) = t.get(k + 1).map(|n| &n.tok)
                    {
                        let name = name.clone();
                        scan.mods.push(ModDecl { name, line, test, path_attr: None, body: None });
                    }
                    (i, test, path_attr) = (end, false, None);
                }
            }
            (Tok::Ident(kw), Some(Tok::Ident(name))) if kw == "mod" => {
                let name = name.clone();
                let mut body = None;
                i += 2;
                if t.get(i).map(|n| &n.tok) == Some(&Tok::Punct('{')) {
                    let close = matching(t, i);
                    body = Some(t[i + 1..close].to_vec());
                    i = close;
                }
                scan.mods.push(ModDecl { name, line, test, path_attr: path_attr.take(), body });
            }
            (Tok::Ident(kw), _) if kw == "use" => {
                i += 1;
                use_tree(t, &mut i, Vec::new(), &mut scan.uses);
            }
            (Tok::Ident(first), next)
                if matches!(first.as_str(), "crate" | "super" | "self")
                    || next == Some(&Tok::PathSep) =>
            {
                let mut path = vec![first.clone()];
                let visibility = i > 0 && t[i - 1].tok == ident("in");
                i += 1;
                while let (Some(Tok::PathSep), Some(Tok::Ident(segment))) =
                    (t.get(i).map(|n| &n.tok), t.get(i + 1).map(|n| &n.tok))
                {
                    path.push(segment.clone());
                    i += 2;
                }
                // A lone `self`, `super` or `crate` names no item (`self.x`, `pub(crate)`), and
                // `pub(in path)` is a visibility, not a reference.
                if path.len() > 1 && !visibility {
                    scan.paths.push((path, line));
                }
            }
            (Tok::Punct(';' | '{' | '}'), _) => {
                (test, path_attr) = (false, None);
                i += 1;
            }
            _ => i += 1,
        }
    }
    scan
}

fn ident(word: &str) -> Tok {
    Tok::Ident(word.to_owned())
}

/// The index of the bracket closing the one at `open` (or the end).
fn matching(t: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, token) in t.iter().enumerate().skip(open) {
        match token.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// The index after the item starting at `i`: after its `;` or `,`, or its closing `}`, at the
/// item's own depth; or at a bracket closing what encloses it.
fn item_end(t: &[Token], i: usize) -> usize {
    let mut depth = 0usize;
    for (k, token) in t.iter().enumerate().skip(i) {
        match token.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') if depth == 0 => return k,
            Tok::Punct('}') if depth == 1 => return k + 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(';' | ',') if depth == 0 => return k + 1,
            _ => {}
        }
    }
    t.len()
}

/// Parses one `use` tree from `i` (after `use` or inside braces), adding its leaves to `out`.
fn use_tree(t: &[Token], i: &mut usize, mut path: Vec<String>, out: &mut Vec<UsePath>) {
    let tok = |k: usize| t.get(k).map(|n| &n.tok);
    let mut glob = false;
    let mut line = t.get(*i).map_or(0, |n| n.line);
    while let Some(token) = t.get(*i) {
        match &token.tok {
            Tok::Ident(segment) if segment != "as" => {
                path.push(segment.clone());
                line = token.line;
            }
            Tok::PathSep => {}
            Tok::Punct('*') => glob = true,
            Tok::Punct('{') => {
                *i += 1;
                while !matches!(tok(*i), None | Some(Tok::Punct('}'))) {
                    let before = *i;
                    use_tree(t, i, path.clone(), out);
                    if matches!(tok(*i), Some(Tok::Punct(','))) || *i == before {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => break,
        }
        *i += 1;
    }
    let mut alias = path.iter().rev().find(|s| *s != "self").cloned();
    if tok(*i) == Some(&ident("as")) {
        alias = match tok(*i + 1) {
            Some(Tok::Ident(name)) if name != "_" => Some(name.clone()),
            _ => None,
        };
        *i += 2;
    }
    if !path.is_empty() {
        out.push(UsePath { path, glob, alias: alias.filter(|_| !glob), line });
    }
}
