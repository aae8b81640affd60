//! What the engine hands its host after each input: frames for ports, ports to close, effects to
//! start (model calls, tool calls, target resolutions, connection checks) and when to wake it.
//! These are the only types a host needs besides the engine's entry points.

use panelot_protocol::EventFrame;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use serde_json::Value;

use crate::model::ModelRequest;
use crate::target::PageSeen;
use crate::target::ResolvedTarget;
use crate::target::TargetRequest;

/// A port, as numbered by the host.
pub type PortId = u32;

/// Identity of one effect; never reused by an engine, so a late result of an aborted effect is
/// recognised and dropped.
pub type EffectId = u64;

/// What the host must do after the engine handled something.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outbox {
    /// Frames to post, in order, with their port.
    pub sends: Vec<(PortId, EventFrame)>,
    /// Ports to close after posting.
    pub closes: Vec<PortId>,
    /// Work to start (or stop) outside the engine, in order.
    pub effects: Vec<Effect>,
    /// When to call the engine's `on_tick` next (ms since the Unix epoch), if at all.
    pub wake_at_ms: Option<u64>,
}

impl Outbox {
    /// Frames for one port, in order.
    pub fn for_port(&self, port: PortId) -> Vec<&EventFrame> {
        self.sends.iter().filter(|(p, _)| *p == port).map(|(_, f)| f).collect()
    }
}

/// Work the engine asks the host to do. Each carries everything the host needs: the host never
/// reads the engine's storage.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Stream one model call, feeding its events and outcome back.
    CallModel {
        /// The effect.
        id: EffectId,
        /// The connection as stored (its keys sealed by the host's vault).
        connection: Value,
        /// The call.
        request: ModelRequest,
    },
    /// Resolve where a tool call would act, feeding the answer back.
    ResolveTarget {
        /// The effect.
        id: EffectId,
        /// What to resolve.
        request: TargetRequest,
    },
    /// Run one tool call, feeding its outcome back.
    RunTool {
        /// The effect.
        id: EffectId,
        /// The call.
        call: ToolInvocation,
    },
    /// Check a stored connection (list models, stream once, one tool round trip), feeding the
    /// findings back.
    VerifyConnection {
        /// The effect.
        id: EffectId,
        /// The connection as stored.
        connection: Value,
        /// Model to try; the first listed one when `None`.
        model: Option<String>,
    },
    /// Show the user, in the page, the element an approval card is about (or clear it). Nothing
    /// comes back; a page that went away simply shows nothing.
    Highlight {
        /// The tab.
        tab: u32,
        /// The document the element belongs to.
        document_id: Option<String>,
        /// The element; `None` clears the highlight.
        element_ref: Option<String>,
    },
    /// Tell the user, outside any view, that a thread needs them (or that it no longer does:
    /// `notice` is `None`). Nothing comes back.
    Notify {
        /// The thread; the host opens it when the notice is clicked.
        thread_id: ThreadId,
        /// What to say; `None` takes back what was said about the thread.
        notice: Option<Notice>,
    },
    /// Run exactly these MCP servers (stored form, secrets sealed by the host's vault): close
    /// the ones not listed, connect the new ones set to connect at startup. Answered over time
    /// with each server's status and catalog (`Engine::on_mcp_status`, `Engine::on_mcp_catalog`).
    McpConfigure {
        /// Every stored server, switched off ones included.
        servers: Vec<Value>,
        /// The servers' OAuth sign-ins, sealed.
        credentials: Vec<crate::settings::StoredCredentials>,
    },
    /// Ask the MCP client for prompts and resources, feeding the answer back
    /// (`Engine::on_mcp_answered`).
    McpQuery {
        /// The effect.
        id: EffectId,
        /// What to ask.
        query: McpQuery,
    },
    /// Answer an MCP server's question (`elicitation/create`) with the user's answer:
    /// `{action: accept|decline|cancel, content?}`. Nothing comes back.
    McpElicitAnswer {
        /// The module's id of the question.
        request_id: String,
        /// The answer, as MCP's `ElicitResult`.
        result: Value,
    },
    /// Connect an MCP server now (the user asked; signs in when it needs it).
    McpConnect {
        /// The server.
        server: String,
    },
    /// Stop an effect at once (its outcome, if any, is ignored).
    Abort {
        /// The effect.
        id: EffectId,
    },
    /// The run stopped acting: its indicator in these tabs goes away, or says that the run is
    /// paused. Shown by the host when it runs a call with [`ToolInvocation::indicator`]. Nothing
    /// comes back; a tab that went away shows nothing.
    Indicator {
        /// The run whose indicator it is (another run's is left alone).
        run_id: RunId,
        /// The tabs the run wrote to.
        tabs: Vec<u32>,
        /// What the indicator shows now.
        state: IndicatorState,
    },
}

/// What a run's page indicator shows once the run stops acting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndicatorState {
    /// The run still acts there: a takeover it did not take (it waits for the user's answer,
    /// and the page is theirs meanwhile) no longer says it is pausing.
    Working,
    /// The run is paused until the user resumes it from the panel.
    Paused,
    /// The run no longer acts: the indicator goes.
    Gone,
}

/// What a UI asked of the servers (prompts and resources); the host asks its MCP client and
/// answers with [`super::Engine::on_mcp_answered`].
#[derive(Debug, Clone, PartialEq)]
pub enum McpQuery {
    /// The prompts and resources of one server, or of every enabled one.
    List {
        /// The server; every enabled one when `None`.
        server: Option<String>,
    },
    /// A prompt filled in, or a resource read.
    Fetch {
        /// The server.
        server: String,
        /// What to get.
        fetch: panelot_protocol::engine::McpFetch,
    },
}

/// A tool call to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInvocation {
    /// Its thread.
    pub thread_id: ThreadId,
    /// Its run.
    pub run_id: RunId,
    /// Provider call id.
    pub call_id: String,
    /// Tool name.
    pub tool: String,
    /// Validated parameters.
    pub params: Value,
    /// How many times this call has been dispatched, this time included (above 1 only for a
    /// replayed read or an explicit retry).
    pub dispatch: u32,
    /// Where the call was judged to act: the host acts there and nowhere else, and refuses with
    /// [`FailureCause::TargetChanged`] when the page is no longer that one. `None` for tools
    /// without a tab (`tabs_list`, `tab_open`).
    pub target: Option<ResolvedTarget>,
    /// The document the call's refs came from (its tab's latest snapshot), when known.
    pub ref_document: Option<String>,
    /// For an MCP call whose server asked the user before a restart: answer and read on
    /// instead of calling again.
    pub mcp_resume: Option<McpResume>,
    /// The run acts on the call's tab in this turn (the call writes there, or an earlier one
    /// did): the host shows the page indicator there, with Pause and Stop, and hears the user
    /// take over ([`super::PageSignal`]).
    pub indicator: bool,
    /// Whether the host may use the debugger for this call: the turn enables L2 and the page
    /// (and the page around a frame) is not off limits. `read_page` then falls back to the
    /// accessibility tree and a screenshot when the page's DOM gives nothing readable.
    pub debugger: bool,
    /// Whether the model reads images: `read_page`'s fallback may then end in a screenshot.
    /// A blind model is never given one it cannot see (it is told the page is unreadable).
    pub vision: bool,
}

/// An MCP call to go on with after a restart: its server's question is answered where the call
/// stood, and the call's result is read from there.
#[derive(Debug, Clone, PartialEq)]
pub struct McpResume {
    /// Where the call stood, as the host's MCP client said (opaque to the engine).
    pub point: String,
    /// The user's answer, as MCP's `ElicitResult`.
    pub answer: Value,
}

/// A browser notification's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The headline (the thread's title).
    pub title: String,
    /// What the thread needs.
    pub message: String,
}

/// How a tool call ended, as its host reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// Worked or failed.
    pub status: ToolStatus,
    /// Rich details for the UI (evidence, attachments); never sent to the model.
    pub details: Option<Value>,
    /// The page the result came from, or where the tab was after a write (boxed: most outcomes
    /// are carried in `Result`s, which should stay small).
    pub page: Option<Box<PageSeen>>,
    /// A tab the call opened (a link with a target, `tab_open`): page calls go there next.
    pub opened_tab: Option<u32>,
    /// Where content from outside any tab came from (a fetched URL, after its redirects): the
    /// source its taint is recorded under, and checked like a page a write landed on.
    pub source: Option<String>,
}

/// Whether a tool call worked.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolStatus {
    /// It worked.
    Done {
        /// What the model reads.
        content: String,
    },
    /// It failed; the message goes back to the model.
    Failed {
        /// What went wrong, for the model and the card.
        message: String,
        /// Why, when the engine acts on it.
        cause: FailureCause,
    },
}

/// Why a tool call failed, when the engine does something about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureCause {
    /// Nothing the engine acts on: the model reads the message.
    Other,
    /// The host may not reach the site; the user is asked once to grant access, and the call,
    /// which never ran, runs again if they do.
    NoHostAccess {
        /// The site's origin.
        origin: String,
    },
    /// The page was not the one the call was judged for (it navigated, the tab moved); the call
    /// did not act.
    TargetChanged,
    /// The call's MCP server wants the user to sign in (again) before it answers; the call
    /// did not run. The user is told, outside any view too: a run in the background cannot
    /// sign in.
    NeedsSignIn,
    /// The call may or may not have acted and cannot say which (an MCP call cut by a restart
    /// that could not be read on): the run parks as `paused_uncertain` for the user.
    Uncertain,
    /// A synthetic write visibly did not take (the field does not hold the typed text): the
    /// engine may run it once more with trusted input, when the turn offers that tool.
    NotEffective,
}

impl ToolOutcome {
    /// A success with `content` for the model.
    pub fn done(content: impl Into<String>) -> ToolOutcome {
        ToolOutcome {
            status: ToolStatus::Done { content: content.into() },
            details: None,
            page: None,
            opened_tab: None,
            source: None,
        }
    }

    /// A failure the model reads.
    pub fn failed(message: impl Into<String>) -> ToolOutcome {
        ToolOutcome::failed_because(message, FailureCause::Other)
    }

    /// A failure the engine acts on.
    pub fn failed_because(message: impl Into<String>, cause: FailureCause) -> ToolOutcome {
        ToolOutcome {
            status: ToolStatus::Failed { message: message.into(), cause },
            details: None,
            page: None,
            opened_tab: None,
            source: None,
        }
    }

    /// With details for the UI.
    pub fn with_details(mut self, details: Value) -> ToolOutcome {
        self.details = Some(details);
        self
    }

    /// With the page it saw.
    pub fn with_page(mut self, page: PageSeen) -> ToolOutcome {
        self.page = Some(Box::new(page));
        self
    }

    /// With the URL its content came from, outside any tab.
    pub fn with_source(mut self, url: impl Into<String>) -> ToolOutcome {
        self.source = Some(url.into());
        self
    }

    /// With a tab it opened.
    pub fn with_opened_tab(mut self, tab: u32) -> ToolOutcome {
        self.opened_tab = Some(tab);
        self
    }

    /// Whether it worked.
    pub fn is_ok(&self) -> bool {
        matches!(self.status, ToolStatus::Done { .. })
    }

    /// What the model reads: the content, or `Error: ` and the message.
    pub fn text(&self) -> String {
        match &self.status {
            ToolStatus::Done { content } => content.clone(),
            ToolStatus::Failed { message, .. } => format!("Error: {message}"),
        }
    }
}
