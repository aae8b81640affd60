//! The rows of the message stream, as a person reads them: consecutive tool calls of a turn are
//! one row of steps; a model call that only called tools (an answer without text) is no row of
//! its own; the answer that ends a turn shows the turn's token usage, once. Built from the
//! entries on demand, so a live turn and a reloaded one read the same.

use std::collections::BTreeSet;

use panelot_protocol::engine::Usage;

use super::Entry;
use super::EntryBody;
use super::EntryKey;
use super::ThreadView;
use crate::state::activity::Step;
use crate::state::activity::StepStatus;
use crate::state::artifacts;
use crate::state::artifacts::Artifact;

/// One row of the stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// An entry as it is (an answer carries its turn's usage when it ends the turn; a call that
    /// saved an artifact is its card).
    Entry(Box<Entry>),
    /// Consecutive tool calls of one turn.
    Steps(Vec<Step>),
}

impl ThreadView {
    /// The keys of the rows, in order: each entry but the tool calls that continue a row of
    /// steps (the first names the row) and answers without text. Each key once, so a list keyed
    /// by them never draws (or measures) a row twice.
    pub fn rows(&self) -> Vec<EntryKey> {
        let mut keys = Vec::with_capacity(self.entries.len());
        let mut named = BTreeSet::new();
        let mut last: Option<&Entry> = None;
        for entry in &self.entries {
            if hidden(entry) {
                continue;
            }
            // A saved artifact is a card of its own, between rows of steps.
            let step =
                |e: &Entry| matches!(e.body, EntryBody::Tool { .. }) && !artifacts::is_artifact(e);
            let continues =
                step(entry) && last.is_some_and(|l| step(l) && l.turn_id == entry.turn_id);
            if !continues && named.insert(&entry.key) {
                keys.push(entry.key.clone());
            }
            last = Some(entry);
        }
        keys
    }

    /// The row named `key` (see [`Self::rows`]).
    pub fn row(&self, key: &EntryKey) -> Option<Row> {
        let at = *self.index.get(key)?;
        let entry = &self.entries[at];
        match &entry.body {
            EntryBody::Tool { .. } if artifacts::is_artifact(entry) => {
                Some(Row::Entry(Box::new(entry.clone())))
            }
            EntryBody::Tool { .. } => Some(Row::Steps(self.steps_from(at))),
            EntryBody::Assistant { .. } => Some(Row::Entry(Box::new(self.with_turn_usage(at)))),
            _ => Some(Row::Entry(Box::new(entry.clone()))),
        }
    }

    /// The steps of the row that starts at `at`.
    fn steps_from(&self, at: usize) -> Vec<Step> {
        let turn = &self.entries[at].turn_id;
        let mut steps = Vec::new();
        for entry in &self.entries[at..] {
            match self.step(entry) {
                Some(step) if &entry.turn_id == turn && !artifacts::is_artifact(entry) => {
                    steps.push(step);
                }
                _ if hidden(entry) => {}
                _ => break,
            }
        }
        steps
    }

    /// The step of a tool entry; `None` for another entry.
    fn step(&self, entry: &Entry) -> Option<Step> {
        let EntryBody::Tool { item_id, tool_name, params, result, .. } = &entry.body else {
            return None;
        };
        // The approval that waits for this call: named by its item, or (from an engine that
        // does not name it) the turn's first call without a result.
        let waiting = self.approvals.iter().find(|a| match &a.item_id {
            Some(item) => item == item_id,
            None => {
                Some(&a.turn_id) == entry.turn_id.as_ref()
                    && self.first_open_call(&a.turn_id).is_some_and(|k| k == &entry.key)
            }
        });
        let running = self.active_turn.as_ref().map(|t| &t.turn_id) == entry.turn_id.as_ref();
        let status = match (result, waiting) {
            (Some(result), _) => StepStatus::of(result.outcome),
            (None, Some(_)) => StepStatus::Waiting,
            (None, None) if running => StepStatus::Running,
            (None, None) => StepStatus::NotRun,
        };
        let target = result
            .as_ref()
            .and_then(|r| r.target.clone())
            .or_else(|| waiting.and_then(|a| a.request.target.clone()));
        Some(Step {
            key: entry.key.clone(),
            tool_name: tool_name.clone(),
            params: params.clone().or_else(|| waiting.map(|a| a.request.params.clone())),
            target,
            origin: waiting.and_then(|a| a.request.target_origin.clone()),
            status,
            excerpt: result.as_ref().and_then(|r| r.excerpt.clone()),
        })
    }

    /// The artifacts the thread's entries saved, oldest first.
    pub fn artifacts(&self) -> Vec<Artifact> {
        self.entries.iter().filter_map(artifacts::of_entry).collect()
    }

    /// The key of the first call of `turn` without a result.
    fn first_open_call(&self, turn: &panelot_protocol::TurnId) -> Option<&EntryKey> {
        self.entries
            .iter()
            .find(|e| {
                e.turn_id.as_ref() == Some(turn)
                    && matches!(e.body, EntryBody::Tool { result: None, .. })
            })
            .map(|e| &e.key)
    }

    /// The answer at `at`, with the usage and cost of its whole turn when it is the turn's last
    /// answer with text, the turn is over and the provider reported tokens; without otherwise.
    fn with_turn_usage(&self, at: usize) -> Entry {
        let mut entry = self.entries[at].clone();
        let turn = entry.turn_id.clone();
        let over = turn.is_some() && self.active_turn.as_ref().map(|t| &t.turn_id) != turn.as_ref();
        // The turn's entries are together in the stream: look both ways from this one.
        let same_turn = |e: &&Entry| e.turn_id == turn;
        let before = self.entries[..at].iter().rev().take_while(same_turn);
        let after: Vec<&Entry> = self.entries[at + 1..].iter().take_while(same_turn).collect();
        let last = !after.iter().any(|e| is_answer(e) && !hidden(e));
        let (mut total, mut cost) = (Usage::default(), None::<f64>);
        for e in before.chain(std::iter::once(&self.entries[at])).chain(after) {
            if let EntryBody::Assistant { usage: Some(usage), cost_usd, .. } = &e.body {
                total.input += usage.input;
                total.output += usage.output;
                if let Some(c) = cost_usd {
                    cost = Some(cost.unwrap_or(0.0) + c);
                }
            }
        }
        if let EntryBody::Assistant { usage, cost_usd, .. } = &mut entry.body {
            // A provider that reports no usage says nothing worth a line.
            let shown = over && last && total.input + total.output > 0;
            *usage = shown.then_some(total);
            *cost_usd = if shown { cost } else { None };
        }
        entry
    }
}

fn is_answer(entry: &Entry) -> bool {
    matches!(entry.body, EntryBody::Assistant { .. })
}

/// An answer without text: a model call that only called tools. Its usage counts in the turn's.
fn hidden(entry: &Entry) -> bool {
    matches!(&entry.body, EntryBody::Assistant { text, .. } if text.trim().is_empty())
}

#[cfg(test)]
#[path = "rows_tests.rs"]
mod tests;
