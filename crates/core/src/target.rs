//! Where a tool call acts, known before the gatekeeper judges it.
//!
//! For a tool whose catalog row says it acts in a page (or moves a tab), the engine asks the host
//! to resolve the target first ([`TargetRequest`] out, [`ResolvedTarget`] or [`TargetFailure`]
//! back): the tab, its current URL and title, the document the page executor runs in, and for
//! the elements the call names by ref, what they are and where a click or submit on them leads.
//! The gatekeeper judges that target; the call record keeps it; the dispatch carries it, and the
//! host refuses to act when the page is no longer the one that was judged (`target_changed`).
//!
//! The tab a call acts on is the engine's decision ([`TabChoice`]), made from the run's route
//! ([`RunRoute`]), which lives in the run record and so survives a restart of the worker.

use panelot_protocol::Origin;
use panelot_protocol::engine::ApprovalElement;
use panelot_protocol::engine::ApprovalTarget;
use serde::Deserialize;
use serde::Serialize;

/// Most tabs a run remembers (as opened by its actions, blocked, or with a ref document).
pub const MAX_ROUTE_TABS: usize = 32;

/// Which tab a page call goes to, as the engine decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "tab")]
pub enum TabChoice {
    /// The call names this tab: it must exist.
    Named(u32),
    /// The run moved to this tab earlier (named it, or an action opened it): it must exist.
    Run(u32),
    /// The tab the user sent the message from, if it still exists; else the viewed tab.
    Message(u32),
    /// The tab the user is viewing now (never an extension page).
    Viewed,
}

/// What the host is asked to resolve for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetRequest {
    /// The tool.
    pub tool: String,
    /// Its validated parameters (the host reads the refs and `url` it needs from them).
    pub params: serde_json::Value,
    /// The tab to resolve.
    pub tab: TabChoice,
    /// The document of the tab's latest snapshot in this run, when known: the call's refs
    /// belong to it, and a page that no longer shows it has none of them.
    pub ref_document: Option<String>,
}

/// A link or form submission an element leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Destination {
    /// The absolute URL, as the page resolves it.
    pub url: String,
    /// How the element gets there.
    pub kind: DestinationKind,
}

/// How an element leads somewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DestinationKind {
    /// A link (`a[href]`, `area[href]`).
    Link,
    /// The submission of a form.
    FormSubmit,
}

/// An element a call names by ref, as the page describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementTarget {
    /// The ref the call used.
    #[serde(rename = "ref")]
    pub element_ref: String,
    /// Its role, as the snapshot shows it (`button`, `textbox`, `link`).
    pub role: String,
    /// Its accessible name (at most 200 characters).
    pub name: String,
    /// A password field: what is typed there is a secret.
    #[serde(default)]
    pub password: bool,
    /// Where acting on it leads, when it is a link or submits a form.
    pub destination: Option<Destination>,
}

/// The target of a call, as the host resolved it and the gatekeeper judged it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedTarget {
    /// The tab.
    pub tab: u32,
    /// Its URL when it was resolved.
    pub url: String,
    /// Its title (page-written: shown fenced, never as the user's words).
    pub title: String,
    /// The document the page executor runs in, when the page can be scripted; `None` for tab
    /// tools on pages that cannot (browser pages).
    pub document_id: Option<String>,
    /// The elements the call names.
    #[serde(default)]
    pub elements: Vec<ElementTarget>,
    /// When the call acts in a frame of another origin (its refs are that frame's), the URL of
    /// the tab's top page; `url`, `title` and `document_id` are then the frame's, so the call is
    /// judged, asked about and granted by the frame's origin, and the host still checks that
    /// the tab shows the top page's origin. Left out for the top document (stored as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_of: Option<String>,
}

impl ResolvedTarget {
    /// The URL of the tab's top page: `url`, unless the call acts in a frame.
    pub fn tab_url(&self) -> &str {
        self.frame_of.as_deref().unwrap_or(&self.url)
    }

    /// The page's origin; `None` when the URL has none the gatekeeper can read.
    pub fn origin(&self) -> Option<Origin> {
        Origin::parse(&self.url).ok()
    }

    /// The target as UIs show it (an approval's card, a step of the activity).
    pub fn view(&self) -> ApprovalTarget {
        ApprovalTarget {
            tab_id: self.tab,
            url: self.url.clone(),
            title: self.title.clone(),
            elements: self
                .elements
                .iter()
                .map(|element| ApprovalElement {
                    role: element.role.clone(),
                    name: element.name.clone(),
                    password: element.password,
                    destination: element.destination.as_ref().map(|d| d.url.clone()),
                })
                .collect(),
        }
    }

    /// Where acting on the named elements leads.
    pub fn destinations(&self) -> impl Iterator<Item = &Destination> {
        self.elements.iter().filter_map(|element| element.destination.as_ref())
    }
}

/// Why no target could be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetFailure {
    /// The host may not script the tab's site; the user can grant it.
    NoHostAccess {
        /// The site's origin.
        origin: String,
    },
    /// The call cannot go there (the tab is gone, a browser page, a stale ref); the message
    /// tells the model what to do instead.
    Unreachable {
        /// For the model.
        message: String,
        /// For the UI card (the executor's failure).
        details: Option<serde_json::Value>,
    },
}

/// The page a call's result came from, or where the tab was after a write: the source of taint
/// and the check that a write did not carry the tab somewhere denied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageSeen {
    /// The tab.
    pub tab: u32,
    /// Its URL.
    pub url: String,
    /// Its document, when the executor answered.
    pub document_id: Option<String>,
}

/// Where a run works: durable in its record, so a restart of the worker never forgets it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRoute {
    /// The tab later page calls go to when they name none (the last one named or opened).
    pub tab: Option<u32>,
    /// Tabs the run's actions opened, oldest first.
    #[serde(default)]
    pub opened: Vec<u32>,
    /// Tabs an action carried to a denied place: the run does not act on them again.
    #[serde(default)]
    pub blocked: Vec<u32>,
    /// The document of the latest snapshot of each tab: refs belong to it.
    #[serde(default)]
    pub documents: Vec<TabDocument>,
    /// Every tab the run's calls acted on, first touched first (what `tabs.updated` tells).
    /// Left out when empty, so a run that touched no tab is stored as before the field came.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub touched: Vec<TabTouch>,
}

/// A tab a run's calls acted on, as last seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabTouch {
    /// The tab.
    pub tab: u32,
    /// Its URL when last seen.
    pub url: String,
    /// Its title when last seen (empty when unknown).
    #[serde(default)]
    pub title: String,
    /// Whether a write acted on it.
    #[serde(default)]
    pub wrote: bool,
}

/// The document whose refs a tab's calls use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TabDocument {
    /// The tab.
    pub tab: u32,
    /// The document.
    pub document_id: String,
}

impl RunRoute {
    /// The tab a call goes to: the one it names, else the run's, else the message's, else the
    /// viewed one.
    pub fn choose(&self, named: Option<u32>, message_tab: Option<u32>) -> TabChoice {
        match (named, self.tab, message_tab) {
            (Some(tab), _, _) => TabChoice::Named(tab),
            (None, Some(tab), _) => TabChoice::Run(tab),
            (None, None, Some(tab)) => TabChoice::Message(tab),
            (None, None, None) => TabChoice::Viewed,
        }
    }

    /// Later calls that name no tab go to `tab`.
    pub fn move_to(&mut self, tab: u32) {
        self.tab = Some(tab);
    }

    /// An action of the run opened `tab`; page calls go there next.
    pub fn opened(&mut self, tab: u32) {
        push_bounded(&mut self.opened, tab);
        self.tab = Some(tab);
    }

    /// The run stops acting on `tab`.
    pub fn block(&mut self, tab: u32) {
        push_bounded(&mut self.blocked, tab);
    }

    /// Whether the run may act on `tab`.
    pub fn is_blocked(&self, tab: u32) -> bool {
        self.blocked.contains(&tab)
    }

    /// A call acted on `tab` (a write when `wrote`), which was at `url` titled `title` (either
    /// empty: unknown, the last known one stays).
    pub fn touch(&mut self, tab: u32, url: &str, title: &str, wrote: bool) {
        match self.touched.iter_mut().find(|t| t.tab == tab) {
            Some(seen) => {
                if !url.is_empty() {
                    seen.url = url.to_owned();
                }
                if !title.is_empty() {
                    seen.title = title.to_owned();
                }
                seen.wrote |= wrote;
            }
            None => {
                if self.touched.len() >= MAX_ROUTE_TABS {
                    self.touched.remove(0);
                }
                let (url, title) = (url.to_owned(), title.to_owned());
                self.touched.push(TabTouch { tab, url, title, wrote });
            }
        }
    }

    /// The document of the latest snapshot of `tab`.
    pub fn document(&self, tab: u32) -> Option<&str> {
        self.documents.iter().find(|d| d.tab == tab).map(|d| d.document_id.as_str())
    }

    /// A snapshot of `tab` came from `document_id`: its refs are the current ones.
    pub fn snapshot_taken(&mut self, tab: u32, document_id: &str) {
        self.documents.retain(|d| d.tab != tab);
        if self.documents.len() >= MAX_ROUTE_TABS {
            self.documents.remove(0);
        }
        self.documents.push(TabDocument { tab, document_id: document_id.to_owned() });
    }
}

fn push_bounded(list: &mut Vec<u32>, tab: u32) {
    list.retain(|it| *it != tab);
    if list.len() >= MAX_ROUTE_TABS {
        list.remove(0);
    }
    list.push(tab);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_touch_keeps_what_it_does_not_know() {
        let mut route = RunRoute::default();
        route.touch(4, "https://a.example/", "A", false);
        route.touch(4, "", "", true);
        route.touch(4, "https://a.example/next", "", false);
        let seen = TabTouch {
            tab: 4,
            url: "https://a.example/next".into(),
            title: "A".into(),
            wrote: true,
        };
        assert_eq!(route.touched, [seen]);
    }

    #[test]
    fn the_named_tab_wins_then_the_runs_then_the_messages() {
        let mut route = RunRoute::default();
        assert_eq!(route.choose(None, None), TabChoice::Viewed);
        assert_eq!(route.choose(None, Some(3)), TabChoice::Message(3));
        route.opened(9);
        assert_eq!(route.choose(None, Some(3)), TabChoice::Run(9));
        assert_eq!(route.choose(Some(4), Some(3)), TabChoice::Named(4));
        assert_eq!(route.opened, [9]);
    }

    #[test]
    fn route_lists_stay_bounded_and_documents_follow_the_latest_snapshot() {
        let mut route = RunRoute::default();
        for tab in 0..(MAX_ROUTE_TABS as u32 + 5) {
            route.block(tab);
            route.snapshot_taken(tab, &format!("doc-{tab}"));
        }
        assert_eq!(route.blocked.len(), MAX_ROUTE_TABS);
        assert!(!route.is_blocked(0));
        assert!(route.is_blocked(MAX_ROUTE_TABS as u32 + 4));
        route.snapshot_taken(40, "doc-new");
        assert_eq!(route.document(40), Some("doc-new"));
        assert_eq!(route.documents.len(), MAX_ROUTE_TABS);
    }
}
