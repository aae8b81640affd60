//! What the engine's parts hand back to the router: a [`Decision`] for a command (the unit to
//! commit with its receipt, the answer, events, follow-ups), a [`Step`] for a step of a run, and
//! the [`FollowUp`]s the router runs once either is durable and published. Parts never call each
//! other: they return follow-ups, so the loop has no recursion however long a turn runs.

use panelot_protocol::AgentEvent;
use panelot_protocol::Op;
use panelot_protocol::RunId;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::CommandAckEvent;
use panelot_protocol::engine::CommandRejectedEvent;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::ModelChoice;

use super::outbox::Effect;
use super::outbox::ToolOutcome;
use crate::model::ModelRequest;
use crate::model::ModelResponse;
use crate::store::RunRecord;
use crate::store::ToolCallRecord;
use crate::store::UnitOfWork;
use crate::target::ResolvedTarget;
use crate::target::TargetRequest;
use crate::tools::catalog;
use crate::tools::catalog::Access;

/// Why the engine refused a call: what its step shows, and whether it counts towards the
/// failure breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// A check failed (bad parameters, no such tool): it counts.
    Check,
    /// The user's permissions said no: it does not count.
    Denied,
    /// The user said no (or did not answer in time): it does not count.
    Declined,
    /// The user paused the run before the call ran: it does not count.
    Paused,
}

/// What a tool call's result holds.
#[derive(Debug, Clone)]
pub(crate) enum ResultBody {
    /// What the tool (or the user answering a question) said.
    Outcome(ToolOutcome),
    /// The engine refused the call; the model reads why, outside any fence.
    Refused {
        /// Why.
        message: String,
        /// Whether it counts as a failure.
        refused: Refused,
    },
    /// The user checked an uncertain write and says it was done.
    MarkedDone,
}

/// Work that runs once a decision or step is durable and published.
#[derive(Debug, Clone)]
pub(crate) enum FollowUp {
    /// Start the thread's next queued run if it is free.
    Schedule(ThreadId),
    /// Make the run's next model call.
    Continue(RunId),
    /// Take the model's answer (a model-less answer: the attached pages' reads).
    Answered(RunId, Box<ModelResponse>),
    /// Dispatch the run's next tool call.
    Dispatch(RunId),
    /// Judge the run's call at this index against its resolved target.
    Judge(RunId, usize, Box<ResolvedTarget>),
    /// Write the result of the run's call at this index (a tool's outcome, a refusal, a write
    /// the user marked done, the answer to a question).
    WriteResult {
        /// The run.
        run: RunId,
        /// The call.
        index: usize,
        /// What it holds.
        body: ResultBody,
    },
    /// Run the engine's own tool (`load_tools`, memory) for the run's call at this index.
    EngineTool {
        /// The run.
        run: RunId,
        /// The call.
        index: usize,
        /// What was judged.
        call: Box<super::outbox::ToolInvocation>,
    },
    /// Stop every effect of the run.
    AbortRun(RunId),
    /// The user answered an MCP server's question (or the call ended first): the answer goes
    /// to the server.
    McpElicitAnswered {
        /// The question.
        interaction: panelot_protocol::InteractionId,
        /// The user's answer (or a timeout).
        response: panelot_protocol::engine::InteractionResponse,
        /// The run, its call and where the call stood, when the question can outlive a
        /// restart ([`crate::store::InteractionRecord::mcp_resume`]).
        resume: Option<(RunId, usize, String)>,
    },
    /// The MCP servers changed (one was deleted, when named): offer their tools anew and tell
    /// the host the new set.
    McpChanged(Option<String>),
    /// Stop every effect of the thread's runs and its title call.
    AbortThread(ThreadId),
    /// Ask for the thread's title once the run's first model call has ended.
    TitleAfterFirstAnswer(RunId),
    /// Ask for the title of a thread, from its first message.
    Title(Box<TitleRequest>),
    /// The run's model call could not be made: the run fails with the provider's error.
    ModelFailed(RunId, Box<crate::model::ProviderError>),
    /// A step of the run failed inside the engine: the run fails.
    Fail(RunId, String),
}

/// What a title call needs; taken when it is queued, since the run may end before it runs.
#[derive(Debug, Clone)]
pub(crate) struct TitleRequest {
    pub(crate) thread: ThreadId,
    pub(crate) model: ModelChoice,
    pub(crate) text: String,
}

/// An effect a part asks for; the router numbers it and records who owns it.
#[derive(Debug, Clone)]
pub(crate) enum EffectRequest {
    /// The run's next model call, on the connection its model names.
    Model { run: RunId, model: ModelChoice, request: ModelRequest },
    /// Resolve the target of the run's call at this index.
    Target { run: RunId, index: usize, request: TargetRequest },
    /// Run the run's call at this index.
    Tool { run: RunId, index: usize, call: super::outbox::ToolInvocation },
    /// Watch the page of the run's `watch_page` call at this index while the run waits.
    Watch { run: RunId, index: usize, call: super::outbox::ToolInvocation },
    /// An effect nobody answers (a highlight).
    Plain(Effect),
}

/// What the host is given to run (or watch with) the run's call `call`; `ref_document` is the
/// document its refs came from, when known.
pub(crate) fn invocation(
    run: &RunRecord,
    call: ToolCallRecord,
    ref_document: Option<String>,
) -> super::outbox::ToolInvocation {
    let indicator = call.target.as_ref().is_some_and(|target| {
        catalog::classify(&call.tool_name).access == Access::Write
            || run.route.touched.iter().any(|seen| seen.tab == target.tab && seen.wrote)
    });
    super::outbox::ToolInvocation {
        indicator,
        thread_id: run.thread_id.clone(),
        run_id: run.id.clone(),
        call_id: call.call_id,
        tool: call.tool_name,
        params: call.params,
        dispatch: call.dispatches,
        target: call.target,
        ref_document,
        mcp_resume: None,
        debugger: false,
        vision: false,
    }
}

/// The outcome of a command: the unit to commit with its receipt, and events.
#[derive(Debug)]
pub(crate) struct Decision {
    pub(crate) unit: UnitOfWork,
    pub(crate) answer: AgentEvent,
    pub(crate) events: Vec<AgentEvent>,
    pub(crate) effects: Vec<EffectRequest>,
    pub(crate) then: Vec<FollowUp>,
}

impl Decision {
    /// The command's answer with nothing to write.
    pub(crate) fn answer(answer: AgentEvent) -> Decision {
        Decision {
            unit: UnitOfWork::new(),
            answer,
            events: Vec::new(),
            effects: Vec::new(),
            then: Vec::new(),
        }
    }

    /// A refusal with nothing to write.
    pub(crate) fn rejected(op: &Op, code: ErrorCode, message: impl Into<String>) -> Decision {
        Decision::answer(rejection(op, code, message))
    }
}

/// One step of a run: the unit to commit (nodes, thread leaf, run state), then the thread
/// events to broadcast, the effects to start and the follow-ups to queue, in that order.
#[derive(Debug, Default)]
pub(crate) struct Step {
    pub(crate) unit: UnitOfWork,
    pub(crate) events: Vec<AgentEvent>,
    pub(crate) effects: Vec<EffectRequest>,
    pub(crate) then: Vec<FollowUp>,
}

impl Step {
    /// A step that writes `unit`.
    pub(crate) fn writing(unit: UnitOfWork) -> Step {
        Step { unit, ..Step::default() }
    }

    /// A step that writes nothing and only queues `then`.
    pub(crate) fn then(then: FollowUp) -> Step {
        Step { then: vec![then], ..Step::default() }
    }
}

/// A `command.rejected` answer.
pub(crate) fn rejection(op: &Op, code: ErrorCode, message: impl Into<String>) -> AgentEvent {
    AgentEvent::CommandRejected(CommandRejectedEvent {
        submission_id: op.submission_id().clone(),
        code,
        message: message.into(),
    })
}

/// Whether an answer is the command's final word, to be replayed for a resend: an ack, or a
/// refusal that the same state would always give again. A refusal that depends on the moment
/// (a full queue, a missing capability, an internal failure) is not recorded, so a resend is
/// judged afresh.
pub(crate) fn answer_is_final(answer: &AgentEvent) -> bool {
    let AgentEvent::CommandRejected(rejected) = answer else {
        return true;
    };
    match rejected.code {
        ErrorCode::ThreadNotFound
        | ErrorCode::InvalidCommand
        | ErrorCode::TurnMismatch
        | ErrorCode::AttachmentTooLarge
        | ErrorCode::AttachmentNotFound
        | ErrorCode::AttachmentIdTaken => true,
        ErrorCode::ProtocolMismatch
        | ErrorCode::TurnNotSteerable
        | ErrorCode::NoActiveTurn
        | ErrorCode::QueueFull
        | ErrorCode::Overloaded
        | ErrorCode::Interrupted
        | ErrorCode::ProviderError
        | ErrorCode::NotConfigured
        | ErrorCode::Internal => false,
    }
}

/// A `command.ack` naming the thread and its revision.
pub(crate) fn ack(op: &Op, thread_id: Option<ThreadId>, revision: Option<u64>) -> AgentEvent {
    AgentEvent::CommandAck(CommandAckEvent {
        submission_id: op.submission_id().clone(),
        thread_id,
        run_id: None,
        revision,
    })
}

/// A `command.ack` naming the run the command touched.
pub(crate) fn run_ack(op: &Op, thread_id: &ThreadId, run_id: &RunId) -> AgentEvent {
    AgentEvent::CommandAck(CommandAckEvent {
        submission_id: op.submission_id().clone(),
        thread_id: Some(thread_id.clone()),
        run_id: Some(run_id.clone()),
        revision: None,
    })
}
