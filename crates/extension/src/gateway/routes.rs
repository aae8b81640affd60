//! What the gateway remembers between calls: each run's default tab and each tab's latest
//! snapshot document.
//!
//! Memory only, for this worker's life: after a restart a run falls back to the user's active
//! tab, and a ref sent without its document is checked by the executor's own registry (a ref it
//! never issued is `stale_ref`), so losing this state never sends an action to a wrong element.

use std::collections::BTreeMap;
use std::collections::VecDeque;

use panelot_protocol::RunId;

/// Runs whose default tab is remembered; the oldest is forgotten first.
const MAX_RUNS: usize = 64;

/// Default tabs per run and snapshot documents per tab.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Run → the tab it last named or opened, newest last.
    runs: VecDeque<(RunId, u32)>,
    /// Tab → `documentId` of the latest snapshot taken in it.
    documents: BTreeMap<u32, String>,
}

impl Routes {
    /// The run's default tab, if it named or opened one.
    pub(crate) fn tab_of(&self, run: &RunId) -> Option<u32> {
        self.runs.iter().find(|(it, _)| it == run).map(|(_, tab)| *tab)
    }

    /// Later calls of `run` that name no tab go to `tab`.
    pub(crate) fn route(&mut self, run: &RunId, tab: u32) {
        self.runs.retain(|(it, _)| it != run);
        if self.runs.len() == MAX_RUNS {
            self.runs.pop_front();
        }
        self.runs.push_back((run.clone(), tab));
    }

    /// The document whose refs calls to `tab` carry.
    pub(crate) fn document(&self, tab: u32) -> Option<&str> {
        self.documents.get(&tab).map(String::as_str)
    }

    /// A snapshot of `tab` came from `document`: its refs are the current ones.
    pub(crate) fn snapshot_taken(&mut self, tab: u32, document: &str) {
        self.documents.insert(tab, document.to_owned());
    }

    /// The tab was closed: forget its document. Runs routed to it keep the route, so their next
    /// call fails on the closed tab instead of silently acting on another one.
    pub(crate) fn tab_closed(&mut self, tab: u32) {
        self.documents.remove(&tab);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: usize) -> RunId {
        RunId::new(format!("run-{n}")).unwrap()
    }

    #[test]
    fn a_run_keeps_its_latest_tab_and_old_runs_are_forgotten() {
        let mut routes = Routes::default();
        routes.route(&run(0), 3);
        routes.route(&run(0), 4);
        assert_eq!(routes.tab_of(&run(0)), Some(4));
        for n in 1..=MAX_RUNS {
            routes.route(&run(n), 9);
        }
        assert_eq!(routes.tab_of(&run(0)), None);
        assert_eq!(routes.tab_of(&run(MAX_RUNS)), Some(9));
    }

    #[test]
    fn documents_follow_the_latest_snapshot_and_go_with_the_tab() {
        let mut routes = Routes::default();
        routes.snapshot_taken(3, "doc-a");
        routes.snapshot_taken(3, "doc-b");
        assert_eq!(routes.document(3), Some("doc-b"));
        routes.tab_closed(3);
        assert_eq!(routes.document(3), None);
    }
}
