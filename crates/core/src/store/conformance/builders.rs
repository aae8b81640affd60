//! Records with defaults, named by a few values: what the conformance cases, the samples and
//! other crates' store tests build their records from.

use panelot_protocol::ConnectionId;
use panelot_protocol::ModelId;
use panelot_protocol::NodeId;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::TurnId;
use panelot_protocol::engine::ModelChoice;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::ThreadMeta;
use panelot_protocol::engine::ThreadStats;
use panelot_protocol::engine::UserInput;

use crate::store::records::NodeBody;
use crate::store::records::NodeRecord;
use crate::store::runs::LoopCounters;
use crate::store::runs::RunRecord;
use crate::taint::TaintLedger;
use crate::target::RunRoute;

/// A thread id from a short name.
pub fn thread_id(name: &str) -> ThreadId {
    ThreadId::new(name).unwrap()
}

/// A node id from a number.
pub fn node_id(n: u64) -> NodeId {
    NodeId::new(format!("n{n}")).unwrap()
}

/// Thread metadata with defaults.
pub fn meta(id: &str, updated_at_ms: u64) -> ThreadMeta {
    ThreadMeta {
        id: thread_id(id),
        title: format!("thread {id}"),
        created_at_ms: 1,
        updated_at_ms,
        leaf_id: None,
        revision: 1,
        stats: ThreadStats::default(),
        scope_origins: vec!["https://a.example".into()],
        preset: None,
        parent_thread_id: None,
        folder_id: None,
        tags: vec![],
        pinned: false,
        archived: false,
        permission_policy: None,
    }
}

/// A user-message node.
pub fn text_node(thread: &str, n: u64, parent: Option<u64>) -> NodeRecord {
    NodeRecord {
        id: node_id(n),
        thread_id: thread_id(thread),
        parent_id: parent.map(node_id),
        seq: n,
        created_at_ms: n,
        turn_id: Some(TurnId::new(format!("u{n}")).unwrap()),
        body: NodeBody::UserMessage {
            input: UserInput { text: format!("message {n}"), ..Default::default() },
            steered: false,
        },
    }
}

/// A run record with defaults.
pub fn run(id: &str, thread: &str, seq: u64, state: RunState) -> RunRecord {
    RunRecord {
        id: RunId::new(id).unwrap(),
        thread_id: thread_id(thread),
        turn_id: TurnId::new(format!("turn-{id}")).unwrap(),
        seq,
        state,
        resumable: false,
        input: UserInput { text: format!("input of {id}"), ..Default::default() },
        overrides: None,
        sibling_of: None,
        revision: 1,
        model: ModelChoice {
            connection_id: ConnectionId::new("conn").unwrap(),
            model_id: ModelId::new("model").unwrap(),
        },
        policy: PermissionPolicy::Untrusted,
        token_budget: None,
        preset: None,
        steers: Vec::new(),
        tools: Vec::new(),
        approval: None,
        interaction: None,
        counters: LoopCounters::default(),
        taint: TaintLedger::new(),
        route: RunRoute::default(),
        stop_reason: None,
        note: None,
        pause: None,
        created_at_ms: seq,
        updated_at_ms: seq,
    }
}
