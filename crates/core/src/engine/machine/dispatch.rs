//! The run's next tool call, one at a time: checked (the tool exists, is enabled, its parameters
//! are valid), its target resolved by the host when it acts on a page or moves a tab, judged by
//! the gatekeeper against that target, then asked about, refused, or dispatched with the target
//! it was judged for. Once every call has its result, the next model call follows.

use panelot_protocol::Origin;
use panelot_protocol::engine::InteractionRequestPayload;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::TaintSource;
use serde_json::Value;

use super::Cx;
use crate::engine::approvals;
use crate::engine::decision::EffectRequest;
use crate::engine::decision::FollowUp;
use crate::engine::decision::Refused;
use crate::engine::decision::ResultBody;
use crate::engine::decision::Step;
use crate::engine::decision::invocation;
use crate::engine::interactions;
use crate::engine::presets;
use crate::gatekeeper::GateInput;
use crate::gatekeeper::Verdict;
use crate::gatekeeper::decide;
use crate::runs::transitions::move_run;
use crate::settings::PermissionState;
use crate::store::RunRecord;
use crate::store::StoreError;
use crate::store::ToolCallRecord;
use crate::store::ToolCallStatus;
use crate::store::WriteOp;
use crate::target::ResolvedTarget;
use crate::target::TabChoice;
use crate::target::TargetRequest;
use crate::tools::catalog;
use crate::tools::catalog::Route;
use crate::tools::catalog::TargetKind;
use crate::tools::catalog::ToolCategory;
use crate::tools::validate_params;

/// What the model reads for a call the user's pause kept from running.
const PAUSED_BEFORE_THE_CALL: &str = "Not run: the user paused the run before this call and \
    may have used the page meanwhile. Read the page again before acting on it.";

/// What the gatekeeper reads besides the call: the permission state and the thread's scope.
#[derive(Clone, Copy)]
pub(crate) struct Judging<'a> {
    pub(crate) permissions: &'a PermissionState,
    pub(crate) scope: &'a [Origin],
}

/// The next step for the run's first call without a result. `resolved` is the target the host
/// just resolved for the call at that index.
pub(crate) fn next(
    cx: Cx<'_>,
    mut run: RunRecord,
    resolved: Option<(usize, ResolvedTarget)>,
    judging: Judging<'_>,
) -> Result<Step, StoreError> {
    let Some(index) = run.tools.iter().position(|c| c.status != ToolCallStatus::Done) else {
        return Ok(Step::then(FollowUp::Continue(run.id.clone())));
    };
    if let Some((at, target)) = resolved {
        if at != index || run.tools[index].status != ToolCallStatus::Pending {
            // A resolution for a call that moved on meanwhile (interrupted, answered).
            return Ok(Step::default());
        }
        run.tools[index].target = Some(target);
    }
    let call = run.tools[index].clone();
    // The user paused the run: the calls of the answer that have not run yet do not run (the
    // user may have changed the page meanwhile); the run pauses before its next model call.
    if run.pause.is_some() && call.status == ToolCallStatus::Pending {
        return Ok(refuse(&run, index, PAUSED_BEFORE_THE_CALL.to_owned(), Refused::Paused));
    }
    if let Some(message) = refusal(cx, &run, &call) {
        return Ok(refuse(&run, index, message, Refused::Check));
    }
    // A wait (a question to the user, a time) is the only call of its answer. A watch is
    // judged first, on the page it would watch.
    let kind = catalog::classify(&call.tool_name).target;
    if kind == TargetKind::Originless
        && let Some(request) = interactions::request_of(&call, cx.env.now_ms())
    {
        return wait(cx, run, index, &call, request);
    }
    let acts_on_tab = matches!(kind, TargetKind::Page | TargetKind::TabDestination);
    if acts_on_tab && call.target.is_none() {
        let message_tab = run
            .input
            .browser_context
            .as_ref()
            .and_then(|context| context.default_tab.as_ref())
            .map(|tab| tab.tab_id);
        let tab = run.route.choose(catalog::tab_param(&call.params), message_tab);
        let ref_document = match tab {
            TabChoice::Named(tab) | TabChoice::Run(tab) | TabChoice::Message(tab) => {
                run.route.document(tab).map(str::to_owned)
            }
            TabChoice::Viewed => None,
        };
        let request =
            TargetRequest { tool: call.tool_name.clone(), params: call.params, tab, ref_document };
        let mut step = Step::default();
        step.effects.push(EffectRequest::Target { run: run.id.clone(), index, request });
        return Ok(step);
    }
    if let Some(target) = &call.target
        && run.route.is_blocked(target.tab)
    {
        let message = format!(
            "Panelot stopped acting on tab {} in this turn: an earlier action took it to a page \
             that is off limits. Do not retry it.",
            target.tab
        );
        return Ok(refuse(&run, index, message, Refused::Denied));
    }
    // The gatekeeper, before dispatch; an approved call is judged again, and only a denial (a
    // rule or list changed meanwhile) still stops it.
    match judge(&run, &call, judging) {
        Verdict::Allow => {}
        Verdict::Ask { .. } if call.approved => {}
        Verdict::Ask { flags, reason } => {
            tracing::debug!(%reason, "asking before a tool call");
            return approvals::ask(cx, run, index, flags, None);
        }
        Verdict::Deny { reason, .. } => {
            let message = format!("Denied by the user's permissions: {reason}. Do not retry it.");
            return Ok(refuse(&run, index, message, Refused::Denied));
        }
    }
    if let Some(request) = interactions::request_of(&call, cx.env.now_ms()) {
        return wait(cx, run, index, &call, request);
    }
    dispatch(cx, run, index, judging)
}

/// Parks the run on a wait, or refuses the call that would start it.
fn wait(
    cx: Cx<'_>,
    run: RunRecord,
    index: usize,
    call: &ToolCallRecord,
    request: Result<InteractionRequestPayload, String>,
) -> Result<Step, StoreError> {
    match only_call(&run, call, request) {
        Ok(request) => interactions::ask(cx, run, index, request, None),
        Err(message) => Ok(refuse(&run, index, message, Refused::Check)),
    }
}

/// Why a call cannot run at all, for the model.
fn refusal(cx: Cx<'_>, run: &RunRecord, call: &ToolCallRecord) -> Option<String> {
    let levels = presets::tool_levels(run);
    match cx.tools.get(&call.tool_name) {
        _ if run.counters.tools_disabled => {
            Some("Tools are switched off for the rest of this turn.".to_owned())
        }
        None => Some(format!("There is no tool named `{}`.", call.tool_name)),
        // A tool of a level this turn did not enable was never offered.
        Some(tool) if !crate::tools::offered(tool.level, levels.as_deref()) => {
            Some(format!("`{}` is not enabled for this turn.", call.tool_name))
        }
        Some(_) if call.params.is_null() => {
            Some("The arguments are not a valid JSON object; send them again as one.".to_owned())
        }
        Some(tool) => match validate_params(&tool.parameters, &call.params) {
            Err(e) => Some(format!("Invalid parameters: {e}. Fix them and call again.")),
            // What it would open or save is checked before it is judged: a local path or
            // another scheme is no destination the gatekeeper could weigh, and a filename with
            // folders or a download of nothing cannot work, whatever the user would answer.
            Ok(()) => crate::engine::builtins::check(&call.tool_name, &call.params).err(),
        },
    }
}

fn only_call(
    run: &RunRecord,
    call: &ToolCallRecord,
    request: Result<InteractionRequestPayload, String>,
) -> Result<InteractionRequestPayload, String> {
    match request {
        Ok(_) if run.tools.len() > 1 => Err(format!(
            "`{}` must be the only tool call of an answer; call it again alone",
            call.tool_name
        )),
        other => other,
    }
}

/// The step that writes an engine refusal as the call's result.
pub(crate) fn refuse(run: &RunRecord, index: usize, message: String, refused: Refused) -> Step {
    Step::then(FollowUp::WriteResult {
        run: run.id.clone(),
        index,
        body: ResultBody::Refused { message, refused },
    })
}

/// The gatekeeper's verdict on one call, against its resolved target.
fn judge(run: &RunRecord, call: &ToolCallRecord, judging: Judging<'_>) -> Verdict {
    let target = call.target.as_ref();
    let page_origin = target.and_then(ResolvedTarget::origin);
    let destinations: Vec<_> =
        target.map(|t| t.destinations().cloned().collect()).unwrap_or_default();
    let into_password = target.is_some_and(|t| t.elements.iter().any(|e| e.password))
        && catalog::classify(&call.tool_name).category == Some(ToolCategory::Fill);
    let destination_taint: Vec<TaintSource> = destinations
        .iter()
        .flat_map(|destination| {
            run.taint
                .taint_of(&Value::String(destination.url.clone()))
                .into_iter()
                .filter(|taint| Origin::parse(&taint.source).ok() != page_origin)
                .map(|taint| TaintSource { param: destination.url.clone(), ..taint })
        })
        .collect();
    let input = GateInput {
        tool: &call.tool_name,
        params: &call.params,
        page_url: target.map(|t| t.url.as_str()),
        frame_of: target.and_then(|t| t.frame_of.as_deref()),
        destinations: &destinations,
        into_password,
        policy: run.policy,
        rules: &judging.permissions.rules,
        sensitive: &judging.permissions.sensitive,
        session_grants: &judging.permissions.grants,
        scope_origins: judging.scope,
        taint: &run.taint.taint_of(&call.params),
        destination_taint: &destination_taint,
    };
    decide(&input)
}

/// Dispatches the call at `index` with the target it was judged for.
fn dispatch(
    cx: Cx<'_>,
    mut run: RunRecord,
    index: usize,
    judging: Judging<'_>,
) -> Result<Step, StoreError> {
    move_run(&mut run, RunState::ExecutingTool, cx.env.now_ms())?;
    let call = &mut run.tools[index];
    call.status = ToolCallStatus::Dispatched;
    call.dispatches += 1;
    let call = call.clone();
    // A call that names its tab moves the run there.
    if let (Some(_), Some(target)) = (catalog::tab_param(&call.params), &call.target) {
        run.route.move_to(target.tab);
    }
    let ref_document =
        call.target.as_ref().and_then(|t| run.route.document(t.tab)).map(str::to_owned);
    let mut invocation = invocation(&run, call, ref_document);
    invocation.debugger = debugger_allowed(&run, invocation.target.as_ref(), judging);
    invocation.vision = !run.counters.blind;
    let mut step = Step::default();
    if catalog::route(&invocation.tool) == Some(Route::Engine) {
        // The engine's own tools run once the dispatch is durable, like a host's.
        let call = Box::new(invocation);
        step.then.push(FollowUp::EngineTool { run: run.id.clone(), index, call });
    } else {
        step.effects.push(EffectRequest::Tool { run: run.id.clone(), index, call: invocation });
    }
    step.unit.push(WriteOp::PutRun(Box::new(run)));
    Ok(step)
}

/// Whether the host may use the debugger for a call on `target`: the turn enables L2 and
/// neither the page nor the page around its frame is off limits.
fn debugger_allowed(
    run: &RunRecord,
    target: Option<&ResolvedTarget>,
    judging: Judging<'_>,
) -> bool {
    let levels = presets::tool_levels(run);
    let sensitive = &judging.permissions.sensitive;
    let off = |url: &str| super::result::off_limits(url, sensitive).is_some();
    crate::tools::offered(panelot_protocol::engine::ToolLevel::L2, levels.as_deref())
        && target.is_some_and(|t| !off(&t.url) && !off(t.tab_url()))
}
