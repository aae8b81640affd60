//! Adversarial scenarios through the real side panel, as data: what each permission mode must
//! do with one guarded action, and what must (not) have happened in the page and on the server.
//!
//! A scenario is a [`Row`]: an id, what it tries, the [`Expect`]ed verdict under each [`Mode`],
//! and a function that plays it in a [`World`] and returns the [`Effect`] it observed (did the
//! guarded action happen, judged from the page and the sites' request log). [`run_rows`] plays
//! rows in one browser, a fresh chat and clean rules for each, the mode set as the default
//! policy, and [`check`] compares: a question where none was expected, none where one was, a
//! missing flag, a card that does not name the target's origin, or an action that happened when
//! it must not (or did not when it must) is a failure. Failures are collected, so one run
//! reports the whole table.
//!
//! Hosts are per scenario and mode (`shop.s07-auto.test`), so grants, rules and tabs of one
//! cannot leak into the next; `bank` is a built-in sensitive origin (`*.gov`), served as
//! `bank.<ns>.panelot.gov`.

use std::fmt;
use std::fmt::Write as _;

use anyhow::Context;
use anyhow::bail;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::Reply;
use panelot_testkit::sites::SiteRequest;
use serde_json::Value;

use crate::scripted_model::Transcript;
use crate::side_panel::Card;
use crate::side_panel::Decision;
use crate::side_panel::Panel;
use crate::side_panel::PanelOptions;
use crate::side_panel::TurnHooks;
use crate::side_panel::WebTab;

/// The permission modes, as `settings.update` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Writes run; deny lists, sensitive payloads and taint still ask.
    Auto,
    /// Writes ask.
    Untrusted,
    /// Everything asks, reads included.
    Always,
}

impl Mode {
    /// Every mode, in the order of a row's expectations.
    pub const ALL: [Mode; 3] = [Mode::Auto, Mode::Untrusted, Mode::Always];

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Untrusted => "untrusted",
            Mode::Always => "always",
        }
    }

    fn index(self) -> usize {
        match self {
            Mode::Auto => 0,
            Mode::Untrusted => 1,
            Mode::Always => 2,
        }
    }
}

/// What the engine must do with a scenario's guarded action under one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// It runs without a question, and happens.
    Runs,
    /// A card asks first, showing at least these flags (`data-flag` names); it happens only
    /// when the scenario's answer accepts.
    Asks(&'static [&'static str]),
    /// A card asks, the answer accepts, and it still does not happen: the page refuses a target
    /// that changed after the question.
    AsksThenRefused,
    /// Refused without a question; it does not happen.
    Refused,
}

/// Flags.
pub const SENSITIVE: &[&str] = &["sensitive_payload"];
/// Flags.
pub const TAINTED: &[&str] = &["tainted_input"];
/// Flags.
pub const HOST: &[&str] = &["host_permission"];
/// No flag required.
pub const ANY: &[&str] = &[];

/// What a scenario observed about its guarded action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effect {
    /// Whether it happened, in the page or on a server.
    pub happened: bool,
    /// What was seen, for the report.
    pub evidence: String,
}

impl Effect {
    /// An effect from a flag and what it was read from.
    pub fn new(happened: bool, evidence: impl Into<String>) -> Effect {
        Effect { happened, evidence: evidence.into() }
    }
}

/// One scenario.
#[derive(Clone, Copy)]
pub struct Row {
    /// Short id, also the host namespace (`s07`).
    pub id: &'static str,
    /// What it tries.
    pub what: &'static str,
    /// Under auto, untrusted, always.
    pub expect: [Expect; 3],
    /// Plays it.
    pub run: fn(&mut World<'_>) -> anyhow::Result<Effect>,
}

impl fmt::Debug for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Row").field("id", &self.id).field("expect", &self.expect).finish()
    }
}

/// Tools that only read; their cards (under `always`) are allowed, and are not the guarded
/// action unless a scenario says so.
const READS: &[&str] = &[
    "read_page",
    "find_in_page",
    "extract",
    "get_selection",
    "tabs_list",
    "scroll",
    "wait_for",
    "fetch_url",
];

/// A change the test makes to the world while the engine waits (a navigation, say).
type Change = Box<dyn FnOnce(&mut Panel) -> anyhow::Result<()>>;

/// A held step and the change to make before it is answered.
type Between = (Gate, Change);

/// One scenario under one mode: its hosts, tabs, the cards it saw.
pub struct World<'a> {
    /// The browser, panel and servers.
    pub p: &'a mut Panel,
    /// The mode in force.
    pub mode: Mode,
    ns: String,
    mark: u64,
    model_mark: usize,
    tabs: Vec<WebTab>,
    /// Every card of the scenario, with its answer.
    pub cards: Vec<(Card, Decision)>,
    guarded: Vec<String>,
    allowed: Vec<String>,
    answers: Vec<Decision>,
    target: Option<String>,
    between: Vec<Between>,
    before_answer: Option<Change>,
    /// Notes for the report (an option the card did not offer, say).
    pub notes: Vec<String>,
}

impl fmt::Debug for World<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("World").field("ns", &self.ns).field("cards", &self.cards).finish()
    }
}

impl<'a> World<'a> {
    fn new(p: &'a mut Panel, id: &str, mode: Mode) -> World<'a> {
        let mark = p.sites.mark();
        let model_mark = p.server.requests().len();
        World {
            p,
            mode,
            ns: format!("{id}-{}", mode.name()),
            mark,
            model_mark,
            tabs: Vec::new(),
            cards: Vec::new(),
            guarded: Vec::new(),
            allowed: Vec::new(),
            answers: vec![Decision::Decline],
            target: None,
            between: Vec::new(),
            before_answer: None,
            notes: Vec::new(),
        }
    }

    /// The scenario's host for `name`: `name.<ns>.test`, and `bank` on a built-in sensitive
    /// origin.
    pub fn host(&self, name: &str) -> String {
        match name {
            "bank" => format!("bank.{}.panelot.gov", self.ns),
            _ => format!("{name}.{}.test", self.ns),
        }
    }

    /// `http://<host>:<port>`.
    pub fn origin(&self, name: &str) -> String {
        self.p.sites.origin(&self.host(name))
    }

    /// The URL of `path` on `name`.
    pub fn url(&self, name: &str, path: &str) -> String {
        self.p.sites.url(&self.host(name), path)
    }

    /// Serves `html` at `path` on `name`; `{origin:x}` in it stands for the origin of host `x`.
    pub fn page(&self, name: &str, path: &str, html: &str) {
        let mut html = html.to_owned();
        for other in ["shop", "mail", "evil", "bank", "news", "keys", "login"] {
            html = html.replace(&format!("{{origin:{other}}}"), &self.origin(other));
        }
        self.p.sites.add_page(&self.host(name), path, html);
    }

    /// Lets the extension reach `names` (as if the user had allowed each before).
    pub fn grant(&mut self, names: &[&str]) -> anyhow::Result<()> {
        for name in names {
            let origin = self.origin(name);
            self.p.grant(&origin)?;
        }
        Ok(())
    }

    /// Opens `path` on `name` in the panel's window; the last tab opened with `active` is the
    /// one the user views.
    pub fn open(&mut self, name: &str, path: &str, active: bool) -> anyhow::Result<WebTab> {
        let url = self.url(name, path);
        let tab = self.p.open_tab(&url, active)?;
        self.tabs.push(tab.clone());
        Ok(tab)
    }

    /// Makes cards of `tool` the guarded action's.
    pub fn guard(&mut self, tool: &str) {
        self.guarded.push(tool.to_owned());
    }

    /// Lets cards of `tool` through without counting them as the guarded action's.
    pub fn allow(&mut self, tool: &str) {
        self.allowed.push(tool.to_owned());
    }

    /// How guarded cards are answered (decline by default).
    pub fn answer_with(&mut self, decision: Decision) {
        self.answers = vec![decision];
    }

    /// Answers guarded cards in this order; the last answer repeats.
    pub fn answers(&mut self, decisions: &[Decision]) {
        self.answers = decisions.to_vec();
    }

    /// The host a guarded card's title must name (the card may spell the origin its own way,
    /// with or without scheme and port, but never leave the host out).
    pub fn target(&mut self, name: &str) {
        self.target = Some(self.host(name));
    }

    /// Queues a model step.
    pub fn step(&self, step: impl FnOnce(&Transcript) -> Reply + Send + 'static) {
        self.p.model.push(step);
    }

    /// Queues a fixed model reply.
    pub fn reply(&self, reply: Reply) {
        self.p.model.reply(reply);
    }

    /// Queues a model step whose answer is held until `change` has run on the test's side:
    /// the world changes between the model's request and its answer.
    pub fn step_after(
        &mut self,
        change: impl FnOnce(&mut Panel) -> anyhow::Result<()> + 'static,
        step: impl FnOnce(&Transcript) -> Reply + Send + 'static,
    ) {
        let gate = Gate::new();
        let held = gate.clone();
        self.p.model.push(move |t| step(t).held(&held));
        self.between.push((gate, Box::new(change)));
    }

    /// Runs `change` before the first guarded card is answered.
    pub fn before_answer(
        &mut self,
        change: impl FnOnce(&mut Panel) -> anyhow::Result<()> + 'static,
    ) {
        self.before_answer = Some(Box::new(change));
    }

    /// Sends `text` from the panel and plays the turn (the model's queued steps, then a short
    /// final answer).
    pub fn send(&mut self, text: &str) -> anyhow::Result<()> {
        self.p.model.reply(Reply::text("Done."));
        let mut hooks = Hooks {
            guarded: self.guarded.clone(),
            allowed: self.allowed.clone(),
            answers: self.answers.clone(),
            between: std::mem::take(&mut self.between),
            before_answer: self.before_answer.take(),
            notes: Vec::new(),
        };
        let cards = self.p.run_turn(text, &mut hooks);
        self.notes.append(&mut hooks.notes);
        self.answers = hooks.answers.clone();
        for (gate, _) in &hooks.between {
            // A step the turn never reached must not hold a later request.
            gate.release();
        }
        let cards = cards?;
        self.cards.extend(cards);
        let left = self.p.model.pending();
        if left > 0 {
            self.p.model.clear();
            self.notes.push(format!("the turn ended with {left} model steps not taken"));
        }
        Ok(())
    }

    /// The cards of the guarded action.
    pub fn guarded_cards(&self) -> Vec<&Card> {
        self.cards.iter().map(|(c, _)| c).filter(|c| self.is_guarded(c)).collect()
    }

    fn is_guarded(&self, card: &Card) -> bool {
        self.guarded.contains(&card.tool)
    }

    /// Requests to the scenario's hosts since it began (favicons left out).
    pub fn requests(&self) -> Vec<SiteRequest> {
        let suffix = format!(".{}.", self.ns);
        self.p
            .sites
            .requests_since(self.mark)
            .into_iter()
            .filter(|r| r.host.contains(&suffix) && r.path != "/favicon.ico")
            .collect()
    }

    /// Requests to host `name` with `method` at `path`.
    pub fn requests_to(&self, name: &str, method: &str, path: &str) -> Vec<SiteRequest> {
        let host = self.host(name);
        self.requests()
            .into_iter()
            .filter(|r| r.host == host && r.method == method && r.path == path)
            .collect()
    }

    /// Whether any request to host `name` carried `text`.
    pub fn reached(&self, name: &str, text: &str) -> bool {
        let host = self.host(name);
        self.requests().iter().any(|r| r.host == host && (r.carries(text) || r.path.contains(text)))
    }

    /// A string-valued expression evaluated in `tab`.
    pub fn text_in(&mut self, tab: &WebTab, expression: &str) -> anyhow::Result<String> {
        let value = self.p.eval_tab(tab, expression)?;
        Ok(match value {
            Value::String(text) => text,
            other => other.to_string(),
        })
    }

    /// The scenario's turn requests to the model (title requests left out), oldest first.
    pub fn transcripts(&self) -> Vec<Transcript> {
        let requests = self.p.server.requests();
        requests
            .iter()
            .skip(self.model_mark)
            .map(Transcript::of)
            .filter(Transcript::offers_tools)
            .collect()
    }

    /// The calls the model made, as `name(arguments)`, each with the result the engine sent
    /// back ("" while none came back) and whether it is a guarded call.
    pub fn calls(&self) -> Vec<(String, String, bool)> {
        let Some(last) = self.transcripts().pop() else { return Vec::new() };
        last.tool_calls()
            .into_iter()
            .map(|call| {
                let guarded = self.guarded.contains(&call.name);
                let shown = format!("{}({})", call.name, call.arguments);
                (shown, call.result.unwrap_or_default(), guarded)
            })
            .collect()
    }

    /// [`World::calls`] of guarded tools.
    pub fn guarded_calls(&self) -> Vec<(String, String)> {
        self.calls().into_iter().filter(|(_, _, g)| *g).map(|(c, r, _)| (c, r)).collect()
    }

    /// Whether the model was ever sent `text` in this scenario.
    pub fn model_saw(&self, text: &str) -> bool {
        self.transcripts().iter().any(|t| t.contents().contains(text))
    }

    /// Closes the scenario's tabs.
    fn cleanup(&mut self) -> anyhow::Result<()> {
        let tabs = std::mem::take(&mut self.tabs);
        self.p.close_tabs(&tabs)
    }
}

struct Hooks {
    guarded: Vec<String>,
    allowed: Vec<String>,
    answers: Vec<Decision>,
    between: Vec<Between>,
    before_answer: Option<Change>,
    notes: Vec<String>,
}

impl TurnHooks for Hooks {
    fn answer(&mut self, panel: &mut Panel, card: &Card) -> anyhow::Result<Decision> {
        if !self.guarded.contains(&card.tool) {
            // A read asked under `always`, or host access for a read: let the scenario go on.
            let tool = card.tool.as_str();
            return Ok(if READS.contains(&tool) || self.allowed.iter().any(|a| a == tool) {
                Decision::Allow
            } else {
                self.notes.push(format!("declined an unexpected card for {}", card.tool));
                Decision::Decline
            });
        }
        if let Some(change) = self.before_answer.take() {
            change(panel)?;
        }
        let answer = match self.answers.len() {
            0 => Decision::Decline,
            1 => self.answers[0],
            _ => self.answers.remove(0),
        };
        if answer == Decision::AllowSite && !panel.offers(Decision::AllowSite)? {
            self.notes.push("the card offered no \"for this site\"; allowed once".to_owned());
            return Ok(Decision::Allow);
        }
        Ok(answer)
    }

    fn poll(&mut self, panel: &mut Panel) -> anyhow::Result<()> {
        let mut waiting = Vec::new();
        for (gate, change) in self.between.drain(..) {
            if gate.times_reached() > 0 {
                change(panel)?;
                gate.release();
            } else {
                waiting.push((gate, change));
            }
        }
        self.between = waiting;
        Ok(())
    }
}

/// Whether `decision` lets the call run.
fn accepts(decision: Decision) -> bool {
    matches!(decision, Decision::Allow | Decision::AllowSession | Decision::AllowSite)
}

/// Compares what a scenario saw with what its mode expects.
pub fn check(expect: Expect, world: &World<'_>, effect: &Effect) -> Result<(), String> {
    let guarded = world.guarded_cards();
    let asked = !guarded.is_empty();
    let accepted =
        world.cards.iter().filter(|(c, _)| world.is_guarded(c)).any(|(_, d)| accepts(*d));
    let mut problems = Vec::new();
    if !world.guarded.is_empty() && world.guarded_calls().is_empty() && !asked {
        problems
            .push("the model never made the guarded call (its script found no target)".to_owned());
    }
    match expect {
        Expect::Runs => {
            if asked {
                problems.push(format!("asked ({}) where it should run", card_list(&guarded)));
            }
            if !effect.happened {
                problems.push("the action did not happen".to_owned());
            }
        }
        Expect::Asks(_) | Expect::AsksThenRefused if !asked => {
            let flags = if let Expect::Asks(flags) = expect { flags } else { ANY };
            problems.push(format!("no question (flags {flags:?} expected)"));
            if effect.happened {
                problems.push("the action happened without a question".to_owned());
            }
        }
        Expect::Asks(flags) => {
            if !guarded.iter().any(|c| flags.iter().all(|f| c.has_flag(f))) {
                problems.push(format!("no card with flags {flags:?}: {}", card_list(&guarded)));
            }
            if effect.happened != accepted {
                problems.push(if accepted {
                    "accepted, yet the action did not happen".to_owned()
                } else {
                    "declined, yet the action happened".to_owned()
                });
            }
        }
        Expect::AsksThenRefused => {
            if effect.happened {
                problems.push("the action happened on a target nobody judged".to_owned());
            }
        }
        Expect::Refused => {
            if asked {
                problems.push(format!("asked ({}) where it should refuse", card_list(&guarded)));
            }
            if effect.happened {
                problems.push("the action happened".to_owned());
            }
        }
    }
    if asked
        && let Some(host) = &world.target
        && !guarded.iter().all(|c| c.header.contains(host.as_str()))
    {
        problems.push(format!("a card does not name {host}: {}", card_list(&guarded)));
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
}

/// `text` on one line, cut at `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn card_list(cards: &[&Card]) -> String {
    let shown: Vec<String> =
        cards.iter().map(|c| format!("[{} {:?}]", c.header, c.flags)).collect();
    shown.join(", ")
}

/// One cell of the report.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The row.
    pub id: &'static str,
    /// What the row tries.
    pub what: &'static str,
    /// The mode.
    pub mode: Mode,
    /// `Ok` or what went wrong.
    pub result: Result<(), String>,
    /// The effect seen, the cards and notes.
    pub detail: String,
}

/// Plays `rows` under `mode` in one browser and returns one cell per row.
pub fn run_rows(mode: Mode, rows: &[Row]) -> anyhow::Result<Vec<Cell>> {
    let mut p = Panel::launch(PanelOptions::default()).context("launching the side panel")?;
    let keep: Vec<String> =
        p.rules()?.iter().filter_map(|r| r["id"].as_str().map(str::to_owned)).collect();
    let mut cells = Vec::new();
    for row in rows {
        let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
        p.delete_rules_except(&keep)?;
        p.set_policy(mode.name())?;
        p.new_chat()?;
        p.model.clear();
        let started = std::time::Instant::now();
        let mut world = World::new(&mut p, row.id, mode);
        let played = (row.run)(&mut world);
        let took = started.elapsed();
        let (result, detail) = match played {
            Ok(effect) => {
                let result = check(row.expect[mode.index()], &world, &effect);
                (result, format!("effect: {effect:?}"))
            }
            Err(err) => (Err(format!("could not play: {err:#}")), String::new()),
        };
        let mut detail = format!("{detail} ({:.1} s)", took.as_secs_f64());
        for (call, result, guarded) in world.calls() {
            let mark = if guarded { "*" } else { " " };
            let _ = write!(detail, "\n {mark}call {call}\n    -> {}", one_line(&result, 300));
        }
        for (card, decision) in &world.cards {
            let _ = write!(detail, "\n  card {} {:?} -> {decision:?}", card.header, card.flags);
        }
        for note in &world.notes {
            let _ = write!(detail, "\n  note: {note}");
        }
        let cleaned = world.cleanup();
        drop(world);
        if result.is_err() {
            // A scenario that failed half way may leave a card or a running turn.
            let _ = p.settle();
        }
        cleaned?;
        cells.push(Cell { id: row.id, what: row.what, mode, result, detail });
    }
    Ok(cells)
}

/// The report of a run: one line per cell, then the details of the failures (of every cell
/// with `all`).
pub fn report(cells: &[Cell], all: bool) -> String {
    let mut out = String::new();
    for cell in cells {
        let verdict = match &cell.result {
            Ok(()) => "pass".to_owned(),
            Err(why) => format!("FAIL: {why}"),
        };
        let _ = writeln!(out, "{:<5} {:<9} {verdict}", cell.id, cell.mode.name());
    }
    for cell in cells.iter().filter(|c| all || c.result.is_err()) {
        let _ =
            writeln!(out, "\n{} {} ({}): {}", cell.id, cell.mode.name(), cell.what, cell.detail);
    }
    out
}

/// Plays `rows` under `mode` and fails with the report if any cell failed.
pub fn assert_rows(mode: Mode, rows: &[Row]) {
    let cells = match run_rows(mode, rows) {
        Ok(cells) => cells,
        Err(err) => panic!("{err:#}"),
    };
    eprintln!("{}", report(&cells, true));
    assert!(cells.iter().all(|c| c.result.is_ok()), "{}", report(&cells, false));
}

/// Fails unless `condition`, with `what`.
pub fn ensure(condition: bool, what: impl FnOnce() -> String) -> anyhow::Result<()> {
    if condition { Ok(()) } else { bail!("{}", what()) }
}
