//! The pure side of `read_page_deep`: Chrome's accessibility trees of a tab's frames (each read
//! with `Accessibility.getFullAXTree`, frames of other processes in their own CDP sessions) made
//! into compact lines like the L1 snapshot's (`- button "Pay" [d12]`), within a token budget,
//! and the deep refs those lines give.
//!
//! The accessibility tree is built over the flat tree, so the content of closed shadow roots is
//! in it, and each frame's tree is put under its iframe's line. Only meaningful nodes make a
//! line: ignored nodes and nameless generic containers give their children to their parent, a
//! name repeated by the text under it is said once, and runs of text are merged.
//!
//! **Deep refs** (`d12`) name a DOM node by what CDP knows of it: the frame, the frame's loader
//! (its document) and the node's `backendDOMNodeId`. They are kept by the gateway per tab, one
//! table per read, and each read's numbers follow the last read's, so a number is never reused.
//! The read's range (`d=31-58`) is added to the document id the engine keeps for the tab and
//! sends back with later calls: a ref outside the latest read's range, of a read the gateway no
//! longer holds (the worker restarted), of a frame whose loader changed or that is gone, is
//! refused as stale, never acted on.

use serde_json::Value;

/// The key of the deep read's range in a composed document id (`…|d=31-58`).
const RANGE_KEY: &str = "|d=";
/// Reads kept per tab (several threads may read the same tab).
const READS_KEPT: usize = 4;
/// Characters of a name or a value shown on a line.
const MAX_NAME: usize = 100;
/// Characters of a run of text shown on a line.
const MAX_TEXT: usize = 200;
/// Nodes nested deeper than this are left out.
const MAX_NEST: usize = 400;

/// Roles whose nodes are acted on: they get a ref.
const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "spinbutton",
    "treeitem",
    "textField",
    "DisclosureTriangle",
    "ColorWell",
    "Date",
    "DateTime",
    "InputTime",
    "PopUpButton",
    "ToggleButton",
];

/// Roles that make no line of their own without a name: their children stand in for them.
const TRANSPARENT: &[&str] = &[
    "generic",
    "none",
    "presentation",
    "GenericContainer",
    "Section",
    "group",
    "LineBreak",
    "paragraph",
    "LabelText",
    "Pre",
    "Abbr",
    "Ruby",
    "Mark",
    "time",
    "emphasis",
    "strong",
    "Canvas",
    "sectionheader",
    "sectionfooter",
];

/// The boolean and token states a line shows, as CDP names them.
const STATES: &[&str] =
    &["checked", "pressed", "disabled", "expanded", "selected", "invalid", "required"];

/// One node of a frame's accessibility tree, as read from `Accessibility.getFullAXTree`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct AxNode {
    /// The tree's own id of the node.
    pub id: String,
    /// Its role (`button`, `StaticText`, `RootWebArea`, `Iframe`).
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// Its value (a field's text, a slider's number).
    pub value: String,
    /// Left out of the accessibility tree by Chrome (hidden, or presentational).
    pub ignored: bool,
    /// The DOM node, when it has one.
    pub backend: Option<u64>,
    /// Its children's ids, in order.
    pub children: Vec<String>,
    /// Its states as a line shows them (`[checked]`, `[expanded]`).
    pub states: Vec<String>,
    /// Whether it can take focus (an element with a click handler and a tabindex).
    pub focusable: bool,
    /// A link's target.
    pub url: Option<String>,
    /// A password field (its DOM's `type`, read apart): what is typed there is a secret, and
    /// its value is never shown.
    pub password: bool,
}

/// The nodes of an `Accessibility.getFullAXTree` answer.
pub(crate) fn parse_ax(answer: &Value) -> Vec<AxNode> {
    let Some(nodes) = answer.get("nodes").and_then(Value::as_array) else {
        return Vec::new();
    };
    nodes.iter().map(parse_node).collect()
}

fn parse_node(node: &Value) -> AxNode {
    let text = |key: &str| -> String {
        match node.pointer(&format!("/{key}/value")) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        }
    };
    let mut out = AxNode {
        id: node.get("nodeId").and_then(Value::as_str).unwrap_or_default().to_owned(),
        role: text("role"),
        name: text("name"),
        value: text("value"),
        ignored: node.get("ignored").and_then(Value::as_bool).unwrap_or(false),
        backend: node.get("backendDOMNodeId").and_then(Value::as_u64),
        children: node
            .get("childIds")
            .and_then(Value::as_array)
            .map(|ids| ids.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        ..AxNode::default()
    };
    for property in node.get("properties").and_then(Value::as_array).into_iter().flatten() {
        let name = property.get("name").and_then(Value::as_str).unwrap_or_default();
        let value = property.pointer("/value/value");
        match (name, value) {
            ("focusable", Some(Value::Bool(true))) => out.focusable = true,
            ("url", Some(Value::String(url))) => out.url = Some(url.clone()),
            (state, Some(value)) if STATES.contains(&state) => match value {
                Value::Bool(true) => out.states.push(format!("[{state}]")),
                Value::String(token) if token == "true" => out.states.push(format!("[{state}]")),
                Value::String(token) if token == "mixed" => {
                    out.states.push(format!("[{state}=mixed]"));
                }
                _ => {}
            },
            _ => {}
        }
    }
    out
}

/// The extension's own elements in a page (the page indicator, ref labels, highlights): never
/// part of what the page shows the model, nor something to act on.
pub(crate) const OWN_HOSTS: &str = "panelot-indicator, panelot-overlay";

/// Leaves out the nodes of DOM nodes `hosts` and everything under them (the closed shadow roots
/// of the extension's own elements): they lose their children and are ignored.
pub(crate) fn drop_own(nodes: &mut [AxNode], hosts: &[u64]) {
    for node in nodes.iter_mut().filter(|n| n.backend.is_some_and(|b| hosts.contains(&b))) {
        node.children.clear();
        node.ignored = true;
        node.name.clear();
    }
}

/// Whether a `DOM.describeNode` node is an `<input type=password>` (its attributes are a flat
/// list of names and values).
pub(crate) fn is_password_input(node: &Value) -> bool {
    let name = node.get("nodeName").and_then(Value::as_str).unwrap_or_default();
    let attributes: Vec<&str> = node
        .get("attributes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    name.eq_ignore_ascii_case("input")
        && attributes.chunks(2).any(|pair| {
            pair[0].eq_ignore_ascii_case("type")
                && pair.get(1).is_some_and(|v| v.eq_ignore_ascii_case("password"))
        })
}

/// One frame of a deep read: where its tree came from, and the tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct DeepFrame {
    /// Chrome's frame id.
    pub frame_id: String,
    /// The loader of the document read (a new document, a new loader).
    pub loader_id: String,
    /// The frame's URL when read.
    pub url: String,
    /// Whether it was read in a session of its own (an out-of-process frame): actions there
    /// attach to it again, and its coordinates are offset by its iframe's box.
    pub own_session: bool,
    /// Its parent frame's index among the read's frames (`None` for the top document).
    pub parent: Option<usize>,
    /// The DOM node of its iframe element in the parent frame.
    pub owner: Option<u64>,
    /// Its accessibility tree.
    pub nodes: Vec<AxNode>,
    /// The extension has no access to its site: it is not read (the debugger could, but the
    /// user did not give Panelot that site), and its line says so, as `read_page`'s does.
    pub no_access: bool,
}

/// What a deep ref names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DeepRef {
    /// Its number (`d12` is 12).
    pub n: u32,
    /// The frame's index among the read's frames.
    pub frame: usize,
    /// The DOM node.
    pub backend: u64,
    /// Its role and name, as the line showed them.
    pub role: String,
    /// Its name.
    pub name: String,
    /// A link's target.
    pub url: Option<String>,
    /// A password field.
    pub password: bool,
}

/// One read of a tab: its frames (without their trees) and its refs `first..=last`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DeepRead {
    /// The frames, without their nodes.
    pub frames: Vec<DeepFrame>,
    /// The refs the model was shown.
    pub refs: Vec<DeepRef>,
    /// The first ref number of the read.
    pub first: u32,
    /// The last (`first - 1` when the read gave none).
    pub last: u32,
}

/// The number of a deep ref (`d12` is 12); `None` for any other ref.
pub(crate) fn deep_ref_number(element_ref: &str) -> Option<u32> {
    let digits = element_ref.strip_prefix('d')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The deep refs a call's parameters name (`ref`, at any depth).
pub(crate) fn call_deep_refs(params: &Value) -> Vec<u32> {
    let mut out = Vec::new();
    collect(params, &mut out);
    out
}

fn collect(value: &Value, out: &mut Vec<u32>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("ref", Value::String(r)) => out.extend(deep_ref_number(r)),
                    _ => collect(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect(item, out)),
        _ => {}
    }
}

/// The deep read's range in a composed document id.
pub(crate) fn read_range(document_id: &str) -> Option<(u32, u32)> {
    let at = document_id.find(RANGE_KEY)?;
    let rest = &document_id[at + RANGE_KEY.len()..];
    let rest = rest.split('|').next().unwrap_or(rest);
    let (first, last) = rest.split_once('-')?;
    Some((first.parse().ok()?, last.parse().ok()?))
}

/// `document_id` with its deep range replaced by `first-last`.
pub(crate) fn with_range(document_id: &str, first: u32, last: u32) -> String {
    let kept: Vec<&str> = document_id.split('|').filter(|part| !part.starts_with("d=")).collect();
    format!("{}{RANGE_KEY}{first}-{last}", kept.join("|"))
}

/// Why a deep ref cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StaleRef {
    /// The engine knows no deep read of this tab (or the latest read of the tab was L1 only).
    #[error(
        "stale_ref: d{0} is not from the latest read_page_deep of this tab; call read_page_deep again"
    )]
    NoRead(u32),
    /// The gateway no longer holds the read (the extension restarted, or other reads replaced it).
    #[error(
        "stale_ref: the read_page_deep that gave d{0} is no longer held; call read_page_deep again"
    )]
    Forgotten(u32),
    /// The ref is from an older read than the latest.
    #[error("stale_ref: d{0} is from an older read_page_deep; use the refs of the latest one")]
    Older(u32),
    /// The frame navigated or went away since the read.
    #[error(
        "stale_ref: the frame of d{0} shows another document since read_page_deep; call it again"
    )]
    Navigated(u32),
}

/// The deep reads the gateway holds, per tab (a few reads a tab, for the worker's life: a
/// closed tab's are small and never found again).
#[derive(Debug, Default)]
pub(crate) struct DeepTable {
    tabs: Vec<(u32, Vec<DeepRead>)>,
}

impl DeepTable {
    /// The first ref number for a new read of `tab`: past every number this table gave the tab
    /// and past the range the engine holds (`document_id`), so that no number is used twice,
    /// even across a restart of the worker.
    pub(crate) fn next_first(&self, tab: u32, document_id: Option<&str>) -> u32 {
        let held = self
            .tabs
            .iter()
            .find(|(t, _)| *t == tab)
            .and_then(|(_, reads)| reads.iter().map(|r| r.last).max())
            .unwrap_or(0);
        let known = document_id.and_then(read_range).map_or(0, |(_, last)| last);
        held.max(known).saturating_add(1)
    }

    /// Keeps `read` as `tab`'s newest.
    pub(crate) fn keep(&mut self, tab: u32, read: DeepRead) {
        let at = match self.tabs.iter().position(|(t, _)| *t == tab) {
            Some(at) => at,
            None => {
                self.tabs.push((tab, Vec::new()));
                self.tabs.len() - 1
            }
        };
        let reads = &mut self.tabs[at].1;
        if reads.len() >= READS_KEPT {
            reads.remove(0);
        }
        reads.push(read);
    }

    /// The read and ref that `d<n>` names, for a call whose tab's latest snapshot is
    /// `document_id` (as the engine keeps it).
    pub(crate) fn find(
        &self,
        tab: u32,
        document_id: Option<&str>,
        n: u32,
    ) -> Result<(&DeepRead, &DeepRef), StaleRef> {
        let (first, last) = document_id.and_then(read_range).ok_or(StaleRef::NoRead(n))?;
        let read = self
            .tabs
            .iter()
            .find(|(t, _)| *t == tab)
            .and_then(|(_, reads)| reads.iter().find(|r| r.first == first && r.last == last))
            .ok_or(StaleRef::Forgotten(n))?;
        if n < first || n > last {
            return Err(StaleRef::Older(n));
        }
        let found = read.refs.iter().find(|r| r.n == n).ok_or(StaleRef::Older(n))?;
        Ok((read, found))
    }
}

/// What one line stands for.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    depth: usize,
    text: String,
    /// An interactive node: (frame, node) in the read.
    target: Option<(usize, u64)>,
    /// A frame's or a heading's line: kept before text when the budget is short.
    structure: bool,
    /// Whether lines follow at a greater depth.
    parent: bool,
    role: String,
    name: String,
    url: Option<String>,
    password: bool,
}

/// A deep read rendered: its text, the refs it shows, and what it left out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rendered {
    /// The lines, with a header and, when lines were left out, a footer saying so.
    pub text: String,
    /// The refs shown.
    pub refs: Vec<DeepRef>,
    /// Interactive nodes in the trees.
    pub interactive: usize,
    /// Lines left out for the budget.
    pub omitted: usize,
    /// Interactive ones among them.
    pub omitted_interactive: usize,
    /// Lines shown.
    pub shown: usize,
    /// The estimated tokens of `text`.
    pub tokens: usize,
}

/// The estimated tokens of `text` (about four bytes a token for the ASCII these lines mostly
/// are).
pub(crate) fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// The lines of `frames` (the top document first), within `budget` tokens, refs numbered from
/// `first`. `header` heads the text. When the lines do not fit, text goes first, then what is
/// deepest in the page's order is cut, and the footer says how much went and how to see it.
pub(crate) fn render(frames: &[DeepFrame], header: &str, budget: usize, first: u32) -> Rendered {
    let mut lines = Vec::new();
    if let Some(top) = frames.first()
        && let Some(root) = top.nodes.first()
    {
        let walker = Walker::new(frames);
        walker.node(0, root, 0, 0, &mut lines);
    }
    drop_repeated_text(&mut lines);
    let interactive = lines.iter().filter(|l| l.target.is_some()).count();
    let head_tokens = estimate_tokens(header) + 1;
    let footer_reserve = 40;
    let mut keep = vec![true; lines.len()];
    let cost: Vec<usize> = lines.iter().map(|l| estimate_tokens(&l.text) + 2 + 2).collect();
    let total: usize = cost.iter().sum();
    if head_tokens + total > budget {
        let room = budget.saturating_sub(head_tokens + footer_reserve);
        // Interactive and structural lines first, in page order; text with what is left.
        let mut used = 0;
        for pass in [true, false] {
            for (i, line) in lines.iter().enumerate() {
                let wanted = line.target.is_some() || line.structure;
                if wanted != pass {
                    continue;
                }
                if used + cost[i] <= room {
                    used += cost[i];
                } else {
                    keep[i] = false;
                }
            }
        }
    }
    let mut text = String::with_capacity(total * 4 + header.len() + 64);
    text.push_str(header);
    text.push('\n');
    let mut refs = Vec::new();
    let mut n = first;
    let (mut omitted, mut omitted_interactive, mut shown) = (0, 0, 0);
    for (i, line) in lines.iter().enumerate() {
        if !keep[i] {
            omitted += 1;
            omitted_interactive += usize::from(line.target.is_some());
            continue;
        }
        shown += 1;
        for _ in 0..line.depth {
            text.push_str("  ");
        }
        text.push_str("- ");
        text.push_str(&line.text);
        if let Some((frame, backend)) = line.target {
            text.push_str(&format!(" [d{n}]"));
            refs.push(DeepRef {
                n,
                frame,
                backend,
                role: line.role.clone(),
                name: line.name.clone(),
                url: line.url.clone(),
                password: line.password,
            });
            n += 1;
        }
        let next_deeper = lines[i + 1..].iter().zip(&keep[i + 1..]).find(|(_, k)| **k);
        if line.parent && next_deeper.is_some_and(|(l, _)| l.depth > line.depth) {
            text.push(':');
        }
        text.push('\n');
    }
    if omitted > 0 {
        text.push_str(&format!(
            "# {omitted} lines left out to fit the budget ({omitted_interactive} interactive); \
             call read_page_deep with a larger maxTokens\n"
        ));
    }
    let tokens = estimate_tokens(&text);
    Rendered { text, refs, interactive, omitted, omitted_interactive, shown, tokens }
}

struct Walker<'a> {
    frames: &'a [DeepFrame],
}

impl<'a> Walker<'a> {
    fn new(frames: &'a [DeepFrame]) -> Walker<'a> {
        Walker { frames }
    }

    /// The node `id` of `frame` and its index, looked for from `from` on, then from the start:
    /// Chrome lists a tree's nodes depth first, so a node's next sibling comes soon after the
    /// one before (an index of the ids cost more engine code than it saved here).
    fn find(&self, frame: usize, id: &str, from: usize) -> Option<(usize, &'a AxNode)> {
        let nodes = &self.frames.get(frame)?.nodes;
        let from = from.min(nodes.len());
        let after = nodes[from..].iter().position(|n| n.id == id).map(|at| at + from);
        let at = after.or_else(|| nodes[..from].iter().position(|n| n.id == id))?;
        Some((at, &nodes[at]))
    }

    /// Adds the lines of `node` of `frame` at `depth`.
    fn node(&self, frame: usize, node: &AxNode, depth: usize, nest: usize, out: &mut Vec<Line>) {
        let role = node.role.as_str();
        // Nesting deeper than any real page's is cut (the walk is recursive).
        if role == "InlineTextBox" || nest > MAX_NEST {
            return;
        }
        // The frame a frame owner holds goes under the owner's line.
        let child_frame = node.backend.and_then(|backend| {
            self.frames.iter().position(|f| f.parent == Some(frame) && f.owner == Some(backend))
        });
        if node.ignored && child_frame.is_none() {
            self.children(frame, node, depth, nest, out);
            return;
        }
        if role == "RootWebArea" {
            self.children(frame, node, depth, nest, out);
            return;
        }
        if role == "StaticText" {
            push_text(out, depth, &node.name, false);
            return;
        }
        let interactive = INTERACTIVE.contains(&role) || (node.focusable && !node.name.is_empty());
        let is_frame = role == "Iframe" || child_frame.is_some();
        if !interactive && !is_frame && node.name.is_empty() && TRANSPARENT.contains(&role) {
            self.children(frame, node, depth, nest, out);
            return;
        }
        let shown_role = if is_frame { "iframe" } else { role };
        let mut text = shown_role.to_owned();
        if !node.name.is_empty() {
            text.push_str(&format!(" \"{}\"", clip(&one_line(&node.name), MAX_NAME)));
        }
        if let Some(child) = child_frame.and_then(|at| self.frames.get(at))
            && let Some(origin) = origin_of(&child.url)
        {
            let access = if child.no_access { " — no access" } else { "" };
            text.push_str(&format!(" [{origin}{access}]"));
        }
        for state in &node.states {
            text.push(' ');
            text.push_str(state);
        }
        if node.password {
            text.push_str(" [type=password]");
        } else if !node.value.is_empty() && node.value != node.name {
            text.push_str(&format!(" [value=\"{}\"]", clip(&one_line(&node.value), MAX_NAME)));
        }
        let at = out.len();
        out.push(Line {
            depth,
            text,
            target: if interactive { node.backend.map(|b| (frame, b)) } else { None },
            structure: is_frame || role == "heading",
            parent: false,
            role: shown_role.to_owned(),
            name: node.name.clone(),
            url: node.url.clone(),
            password: node.password,
        });
        match child_frame {
            Some(child) => {
                if let Some(root) = self.frames.get(child).and_then(|f| f.nodes.first()) {
                    self.node(child, root, depth + 1, nest + 1, out);
                }
            }
            None => self.children(frame, node, depth + 1, nest, out),
        }
        // Text under a node that only repeats its name says nothing.
        if out.len() == at + 2 && out[at + 1].target.is_none() && !out[at + 1].parent {
            let said = out[at + 1].text.strip_prefix("text \"").and_then(|t| t.strip_suffix('"'));
            if said == Some(clip(&one_line(&node.name), MAX_TEXT).as_str()) {
                out.truncate(at + 1);
            }
        }
        let has_children = out.len() > at + 1;
        out[at].parent = has_children;
    }

    fn children(
        &self,
        frame: usize,
        node: &AxNode,
        depth: usize,
        nest: usize,
        out: &mut Vec<Line>,
    ) {
        // Text runs of one parent (a paragraph's text and its links' are apart) make one line.
        let mut text_line = None;
        let mut cursor = 0;
        for id in &node.children {
            if let Some((at, child)) = self.find(frame, id, cursor) {
                cursor = at + 1;
                if child.role == "StaticText" && !child.ignored {
                    let merge = text_line.is_some_and(|at: usize| at + 1 == out.len());
                    push_text(out, depth, &child.name, merge);
                    text_line = Some(out.len().saturating_sub(1));
                    continue;
                }
                text_line = None;
                self.node(frame, child, depth, nest + 1, out);
            }
        }
    }
}

/// Drops text lines that only say the name of the line next to them at the same depth (a
/// label's text beside its field).
fn drop_repeated_text(lines: &mut Vec<Line>) {
    let said = |line: &Line, text: &str| line.role != "text" && line.name.trim() == text;
    let mut keep = vec![true; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        if line.role != "text" {
            continue;
        }
        let text = line.name.trim();
        let before = i.checked_sub(1).and_then(|j| lines.get(j)).filter(|l| l.depth == line.depth);
        let after = lines.get(i + 1).filter(|l| l.depth == line.depth);
        if before.is_some_and(|l| said(l, text)) || after.is_some_and(|l| said(l, text)) {
            keep[i] = false;
        }
    }
    let mut at = 0;
    lines.retain(|_| {
        at += 1;
        keep[at - 1]
    });
}

/// A text line, or with `merge` more text on the line just before it.
fn push_text(out: &mut Vec<Line>, depth: usize, text: &str, merge: bool) {
    let text = one_line(text);
    if text.is_empty() {
        return;
    }
    if let Some(last) = out.last_mut()
        && merge
        && last.depth == depth
        && last.role == "text"
    {
        let merged = format!("{} {text}", last.name);
        last.text = format!("text \"{}\"", clip(&merged, MAX_TEXT));
        last.name = merged;
        return;
    }
    out.push(Line {
        depth,
        text: format!("text \"{}\"", clip(&text, MAX_TEXT)),
        target: None,
        structure: false,
        parent: false,
        role: "text".to_owned(),
        name: text,
        url: None,
        password: false,
    });
}

/// Whitespace collapsed, quotes made single.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").replace('"', "'")
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// `scheme://host[:port]` of a web URL.
pub(crate) fn origin_of(url: &str) -> Option<String> {
    panelot_protocol::Origin::parse(url).ok().filter(|o| o.is_web()).map(|o| o.to_string())
}

/// Whether an L1 snapshot's text gives the model nothing to work with: no ref and almost no
/// words (a canvas app, a page whose scripts did not run, an empty shell).
pub(crate) fn unusable(snapshot_text: &str) -> bool {
    let body = snapshot_text.lines().filter(|line| !line.starts_with('#'));
    let mut refs = 0;
    let mut words = 0;
    for line in body {
        if has_ref(line) {
            refs += 1;
        }
        words += line.split(is_separator).filter(|w| w.len() > 1).count();
    }
    refs == 0 && words < 12
}

/// Whether a deep read gives nothing to work with either: no ref and almost no words.
pub(crate) fn unusable_deep(rendered: &Rendered) -> bool {
    let words = rendered
        .text
        .lines()
        .filter(|line| !line.starts_with('#'))
        .flat_map(|line| line.split(is_separator))
        .filter(|w| w.len() > 1)
        .count();
    rendered.refs.is_empty() && words < 12
}

/// What separates words when counting them: ASCII punctuation and spaces (any other letter is
/// part of a word; Unicode's tables would cost the engine for a count).
fn is_separator(c: char) -> bool {
    c.is_ascii() && !c.is_ascii_alphanumeric()
}

/// Whether a snapshot line shows a ref (`[e12]`, `[f5e12]`).
fn has_ref(line: &str) -> bool {
    line.match_indices('[').any(|(at, _)| {
        let rest = &line[at + 1..];
        let rest = rest
            .strip_prefix('f')
            .map_or(rest, |r| r.trim_start_matches(|c: char| c.is_ascii_digit()));
        rest.strip_prefix('e').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    })
}

#[cfg(test)]
#[path = "deep_tests.rs"]
mod tests;
