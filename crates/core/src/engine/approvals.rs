//! Approvals: a call the gatekeeper asks about parks its run on a durable question with a
//! 5-minute deadline that survives restarts, naming the page and elements it was judged for
//! (highlighted in the page while the card is up). `approval.response` records the decision with
//! its receipt; "accept for this session" grants the tool on the judged origin for this browser
//! session, "accept for this site" stores an allow rule for exactly that origin, and neither is
//! possible for a call without one.

use panelot_protocol::AgentEvent;
use panelot_protocol::ApprovalId;
use panelot_protocol::Op;
use panelot_protocol::Origin;
use panelot_protocol::engine::ApprovalDecision;
use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::ApprovalRequestEvent;
use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::ApprovalResolvedEvent;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use panelot_protocol::engine::ThreadMeta;

use super::decision::Decision;
use super::decision::EffectRequest;
use super::decision::FollowUp;
use super::decision::Refused;
use super::decision::ResultBody;
use super::decision::Step;
use super::decision::run_ack;
use super::machine::Cx;
use super::machine::chain::Chain;
use super::machine::chain::ThreadState;
use super::machine::end;
use super::outbox::Effect;
use crate::gatekeeper::grant_key;
use crate::runs::transitions::move_run;
use crate::settings;
use crate::settings::StoredAuthor;
use crate::settings::StoredRule;
use crate::settings::StoredVerdict;
use crate::store::ApprovalRecord;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallRecord;
use crate::store::ToolCallStatus;
use crate::store::UnitOfWork;
use crate::store::WriteOp;
use crate::tools::catalog;
use crate::tools::catalog::TargetKind;

/// How long an approval waits before it resolves as a decline.
pub const APPROVAL_TIMEOUT_MS: u64 = 5 * 60 * 1000;
/// Rules a profile may hold.
pub(crate) const MAX_RULES: usize = 500;

/// The origin a call was judged for: the page it acts on, or where it goes.
pub(crate) fn judged_origin(call: &ToolCallRecord) -> Option<Origin> {
    match catalog::classify(&call.tool_name).target {
        TargetKind::Page => call.target.as_ref().and_then(|target| target.origin()),
        // Where the gatekeeper looked: `url`, or `sidebar_open`'s `target`; an artifact of the
        // thread has no origin.
        TargetKind::Destination | TargetKind::TabDestination => {
            if catalog::names_artifact(&call.tool_name, &call.params) {
                return None;
            }
            let url = crate::gatekeeper::DESTINATION_PARAMS
                .iter()
                .find_map(|name| call.params.get(*name).and_then(serde_json::Value::as_str))?;
            Origin::parse(url).ok()
        }
        TargetKind::Originless => None,
    }
}

/// Parks the run on a question about its call at `index`. The card names `host_origin` when
/// the question is for access to a site, else the origin the call was judged for.
pub(crate) fn ask(
    cx: Cx<'_>,
    mut run: RunRecord,
    index: usize,
    flags: Vec<ApprovalFlag>,
    host_origin: Option<String>,
) -> Result<Step, StoreError> {
    let now = cx.env.now_ms();
    let call = run.tools[index].clone();
    let target_origin = host_origin.or_else(|| judged_origin(&call).map(|o| o.to_string()));
    let target = call.target.as_ref().map(crate::target::ResolvedTarget::view);
    let request = ApprovalRequestPayload {
        tool: call.tool_name.clone(),
        label: cx.tools.get(&call.tool_name).map_or(call.tool_name.clone(), |t| t.label.clone()),
        params: call.params.clone(),
        target_origin,
        target,
        flags,
        preview: None,
        deadline_at_ms: now + APPROVAL_TIMEOUT_MS,
        taint: run.taint.taint_of(&call.params),
    };
    let id = cx.env.id("a", ApprovalId::new)?;
    run.approval =
        Some(ApprovalRecord { id: id.clone(), tool_index: index, request: request.clone() });
    move_run(&mut run, RunState::WaitingApproval, now)?;
    let mut step = Step::default();
    step.events.push(AgentEvent::ApprovalRequest(ApprovalRequestEvent {
        thread_id: run.thread_id.clone(),
        turn_id: run.turn_id.clone(),
        approval_id: id,
        item_id: Some(call.item_id.clone()),
        request,
    }));
    if let Some(target) = &call.target
        && let Some(element) = target.elements.first()
    {
        step.effects.push(EffectRequest::Plain(Effect::Highlight {
            tab: target.tab,
            document_id: target.document_id.clone(),
            element_ref: Some(element.element_ref.clone()),
        }));
    }
    step.unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(step)
}

/// What a decision reads: the store (rules and grants), the browser session, and the thread.
pub(crate) struct Deciding<'a, S> {
    pub(crate) store: &'a S,
    pub(crate) session: &'a str,
    pub(crate) state: Option<ThreadState>,
}

/// Applies a decision (the user's, or a decline at the deadline): its audit node, grants or
/// rule, the run's next state and, for a command, the receipt (added by the router) in one unit;
/// the call runs (or its refusal is written) once that is durable.
pub(crate) async fn decide<S: Store>(
    cx: Cx<'_>,
    reads: Deciding<'_, S>,
    mut run: RunRecord,
    decision: &ApprovalDecision,
    op: Option<&Op>,
) -> Result<Decision, StoreError> {
    let now = cx.env.now_ms();
    let Some(approval) = run.approval.clone() else {
        return Err(StoreError::Integrity(format!("run {} has no approval", run.id)));
    };
    let index = approval.tool_index;
    let origin = approval.request.target_origin.as_deref().and_then(|o| Origin::parse(o).ok());
    let site_grant = matches!(decision, ApprovalDecision::AcceptForSite)
        || matches!(decision, ApprovalDecision::AcceptForSession);
    if site_grant && origin.is_none() {
        let message = "this call has no site to grant: accept it once instead";
        let Some(op) = op else { return Err(StoreError::Integrity(message.to_owned())) };
        return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
    }
    run.approval = None;
    let outcome_text = match decision {
        ApprovalDecision::Accept => "accepted".to_owned(),
        ApprovalDecision::AcceptForSession => "accepted for this session".to_owned(),
        ApprovalDecision::AcceptForSite => "accepted for this site".to_owned(),
        ApprovalDecision::Decline { note: Some(note) } => format!("declined: {note}"),
        ApprovalDecision::Decline { note: None } => "declined".to_owned(),
        ApprovalDecision::Cancel => "cancelled".to_owned(),
    };
    let allowed = matches!(
        decision,
        ApprovalDecision::Accept
            | ApprovalDecision::AcceptForSession
            | ApprovalDecision::AcceptForSite
    );
    let audit = NodeBody::ApprovalDecision {
        approval_id: approval.id.to_string(),
        decision: outcome_text.clone(),
    };
    let tool = run.tools[index].tool_name.clone();
    let mut unit = UnitOfWork::new();
    match decision {
        ApprovalDecision::AcceptForSession => {
            let mut grants =
                settings::read_or_default(reads.store, settings::SESSION_GRANTS).await?;
            grants.grant(reads.session, &run.thread_id, grant_key(&tool, origin.as_ref()));
            unit.push(settings::SESSION_GRANTS.write(&grants)?);
        }
        ApprovalDecision::AcceptForSite => {
            let mut rules = settings::RULES.read(reads.store).await?;
            if rules.len() < MAX_RULES
                && let Some(origin) = &origin
            {
                rules.push(StoredRule {
                    id: format!("approval-{}", approval.id),
                    tool: tool.clone(),
                    origin: origin.to_string(),
                    verdict: StoredVerdict::Allow,
                    source: StoredAuthor::Approval,
                    created_at_ms: now,
                });
                unit.push(settings::RULES.write(&rules)?);
            }
        }
        ApprovalDecision::Accept | ApprovalDecision::Decline { .. } | ApprovalDecision::Cancel => {}
    }
    let mut events = vec![AgentEvent::ApprovalResolved(ApprovalResolvedEvent {
        thread_id: run.thread_id.clone(),
        approval_id: approval.id.clone(),
        outcome: outcome_text.clone(),
    })];
    let mut then = Vec::new();
    let clear = run.tools[index].target.as_ref().map(|target| {
        EffectRequest::Plain(Effect::Highlight {
            tab: target.tab,
            document_id: target.document_id.clone(),
            element_ref: None,
        })
    });
    if matches!(decision, ApprovalDecision::Cancel) {
        let ending = end::Ending {
            state: RunState::Interrupted,
            stop: StopReason::Interrupted,
            note: Some("The user cancelled an approval.".to_owned()),
            first: Some(audit),
            error: None,
            declined: Some(index),
        };
        let (end_unit, ended) = end::ending(cx, &mut run, reads.state, ending)?;
        unit.ops.extend(end_unit.ops);
        events.extend(ended);
        then.push(FollowUp::Schedule(run.thread_id.clone()));
    } else {
        if let Some(state) = reads.state {
            // An accepted call's origin joins the thread's scope with the audit node.
            let joins_scope = origin.as_ref().filter(|_| allowed).map(Origin::to_string);
            audit_node(cx, &run, state, audit, now, joins_scope, &mut unit)?;
        }
        move_run(&mut run, RunState::ExecutingTool, now)?;
        if allowed {
            run.tools[index].approved = true;
            then.push(FollowUp::Dispatch(run.id.clone()));
        } else {
            // The refusal is written like a result, and does not count as a failure.
            run.tools[index].status = ToolCallStatus::Pending;
            let message = format!("The user {}.", outcome_text.trim_end_matches('.'));
            then.push(FollowUp::WriteResult {
                run: run.id.clone(),
                index,
                body: ResultBody::Refused { message, refused: Refused::Declined },
            });
        }
        unit.push(WriteOp::PutRun(Box::new(run.clone())));
    }
    let answer = match op {
        Some(op) => run_ack(op, &run.thread_id, &run.id),
        None => events.remove(0),
    };
    Ok(Decision { unit, answer, events, effects: clear.into_iter().collect(), then })
}

/// Appends one audit node (a decision, an answer) at the thread's leaf, with `origin` joining
/// the thread's scope, to `unit`.
pub(crate) fn audit_node(
    cx: Cx<'_>,
    run: &RunRecord,
    state: ThreadState,
    body: NodeBody,
    now: u64,
    joins_scope: Option<String>,
    unit: &mut UnitOfWork,
) -> Result<(), StoreError> {
    let mut chain = Chain::at_leaf(&state, &run.turn_id, now);
    chain.push_new(cx.env, body)?;
    let mut meta: ThreadMeta = state.meta;
    if let Some(origin) = joins_scope
        && !meta.scope_origins.contains(&origin)
    {
        meta.scope_origins.push(origin);
    }
    // An audit node moves the leaf but does not make the thread more recent in the list.
    meta.leaf_id = chain.leaf();
    chain.write(unit);
    unit.push(WriteOp::PutThread(meta));
    Ok(())
}
