//! The gatekeeper in the loop: every tool call is judged before dispatch (and judged again at
//! dispatch after an approval); a question becomes a durable approval with a 5-minute deadline
//! that survives restarts; `approval.response` records the decision with its receipt.

use std::collections::BTreeSet;

use panelot_protocol::AgentEvent;
use panelot_protocol::ApprovalId;
use panelot_protocol::Op;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ApprovalDecision;
use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::ApprovalRequestEvent;
use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::ApprovalResolvedEvent;
use panelot_protocol::engine::ApprovalResponseParams;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::PendingApproval;
use panelot_protocol::engine::PermissionRuleView;
use panelot_protocol::engine::PermissionVerdict;
use panelot_protocol::engine::RuleAddParams;
use panelot_protocol::engine::RuleAuthor;
use panelot_protocol::engine::RuleDeleteParams;
use panelot_protocol::engine::RunState;
use panelot_protocol::engine::StopReason;
use serde::Deserialize;
use serde::Serialize;

use super::Decision;
use super::Engine;
use super::FollowUp;
use super::InFlight;
use super::Outbox;
use super::ToolOutcome;
use super::run_ack;
use crate::gatekeeper::GateInput;
use crate::gatekeeper::Origin;
use crate::gatekeeper::OriginPattern;
use crate::gatekeeper::Rule;
use crate::gatekeeper::RuleSource;
use crate::gatekeeper::RuleVerdict;
use crate::gatekeeper::SensitiveOrigins;
use crate::gatekeeper::Verdict;
use crate::gatekeeper::decide;
use crate::gatekeeper::grant_key;
use crate::store::ApprovalRecord;
use crate::store::NodeBody;
use crate::store::RunRecord;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::ToolCallRecord;
use crate::store::UnitOfWork;
use crate::store::WriteOp;

/// How long an approval waits before it resolves as a decline.
pub const APPROVAL_TIMEOUT_MS: u64 = 5 * 60 * 1000;
/// Setting: the permission rules, as [`StoredRule`]s.
pub const SETTING_RULES: &str = "permissionRules";
/// Setting: origin patterns the user added to the sensitive list.
pub const SETTING_SENSITIVE: &str = "sensitiveOrigins";
/// Setting: set once the default rules were seeded, so a rule the user deleted stays deleted.
pub const SETTING_RULES_SEEDED: &str = "permissionRulesSeeded";

/// Rules a profile may hold.
const MAX_RULES: usize = 500;

fn grants_key(thread: &ThreadId) -> String {
    format!("grants:{thread}")
}

/// A rule as stored in settings.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StoredRule {
    /// Stable id.
    pub id: String,
    /// Tool pattern: `*`, a name, `prefix*` or `category:X`.
    pub tool: String,
    /// Origin pattern: `*`, an exact origin or `*.domain`.
    pub origin: String,
    /// `allow`, `ask` or `deny`.
    pub verdict: String,
    /// `user`, `approval` or `plugin`.
    pub source: String,
    /// Creation time.
    pub created_at_ms: u64,
}

impl StoredRule {
    /// The rule as the settings page shows it; `None` for one this version cannot read.
    pub(super) fn view(&self) -> Option<PermissionRuleView> {
        let verdict = match self.verdict.as_str() {
            "allow" => PermissionVerdict::Allow,
            "ask" => PermissionVerdict::Ask,
            "deny" => PermissionVerdict::Deny,
            _ => return None,
        };
        let source = match self.source.as_str() {
            "user" => RuleAuthor::User,
            "approval" => RuleAuthor::Approval,
            "plugin" => RuleAuthor::Plugin,
            _ => return None,
        };
        Some(PermissionRuleView {
            id: self.id.clone(),
            tool: self.tool.clone(),
            origin: self.origin.clone(),
            verdict,
            source,
            created_at_ms: self.created_at_ms,
        })
    }

    fn parse(&self) -> Option<Rule> {
        let verdict = match self.verdict.as_str() {
            "allow" => RuleVerdict::Allow,
            "ask" => RuleVerdict::Ask,
            "deny" => RuleVerdict::Deny,
            _ => return None,
        };
        let source = match self.source.as_str() {
            "user" => RuleSource::User,
            "approval" => RuleSource::Approval,
            "plugin" => RuleSource::Plugin,
            _ => return None,
        };
        Rule::parse(&self.id, &self.tool, &self.origin, verdict, source, self.created_at_ms).ok()
    }
}

/// The rules every profile starts with (deleting one keeps it deleted).
pub fn seeded_rules() -> Vec<StoredRule> {
    vec![StoredRule {
        id: "seed-deny-run-javascript".into(),
        tool: "run_javascript".into(),
        origin: "*".into(),
        verdict: "deny".into(),
        source: "user".into(),
        created_at_ms: 0,
    }]
}

impl<S: Store> Engine<S> {
    pub(super) async fn stored_rules(&self) -> Result<Vec<StoredRule>, StoreError> {
        Ok(self.setting_as(SETTING_RULES).await?.unwrap_or_default())
    }

    async fn grants(&self, thread: &ThreadId) -> Result<BTreeSet<String>, StoreError> {
        Ok(self
            .store
            .setting(&grants_key(thread))
            .await?
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default())
    }

    /// `rule.add`: a rule the user wrote, checked by the gatekeeper's own parser.
    pub(super) async fn add_rule(
        &mut self,
        op: &Op,
        p: &RuleAddParams,
    ) -> Result<Decision, StoreError> {
        let now = self.clock.now_ms();
        let (verdict, name) = match p.rule.verdict {
            PermissionVerdict::Allow => (RuleVerdict::Allow, "allow"),
            PermissionVerdict::Ask => (RuleVerdict::Ask, "ask"),
            PermissionVerdict::Deny => (RuleVerdict::Deny, "deny"),
        };
        let rule = StoredRule {
            id: self.ids.new_id("rule"),
            tool: p.rule.tool.trim().to_owned(),
            origin: p.rule.origin.trim().to_owned(),
            verdict: name.to_owned(),
            source: "user".to_owned(),
            created_at_ms: now,
        };
        let parsed =
            Rule::parse(&rule.id, &rule.tool, &rule.origin, verdict, RuleSource::User, now);
        if let Err(err) = parsed {
            let message = format!("the rule is not valid: {err}");
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        let mut rules = self.stored_rules().await?;
        if rules.len() >= MAX_RULES {
            let message = format!("at most {MAX_RULES} rules can be stored");
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        rules.push(rule);
        self.rules_changed(op, rules).await
    }

    /// `rule.delete`. A seeded rule deleted here stays deleted: seeding runs once per profile.
    pub(super) async fn delete_rule(
        &mut self,
        op: &Op,
        p: &RuleDeleteParams,
    ) -> Result<Decision, StoreError> {
        let mut rules = self.stored_rules().await?;
        let before = rules.len();
        rules.retain(|rule| rule.id != p.rule_id);
        if rules.len() == before {
            let message = format!("rule {} does not exist", p.rule_id);
            return Ok(Decision::rejected(op, ErrorCode::InvalidCommand, message));
        }
        self.rules_changed(op, rules).await
    }

    async fn rules_changed(
        &mut self,
        op: &Op,
        rules: Vec<StoredRule>,
    ) -> Result<Decision, StoreError> {
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutSetting {
            key: SETTING_RULES.into(),
            value: serde_json::to_value(&rules).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        });
        let overlay = super::settings::Overlay { rules: Some(&rules), ..Default::default() };
        let settings = self.settings_view(overlay).await?;
        Ok(Self::settings_changed(unit, op, settings))
    }

    /// Seeds the default rules once per profile.
    pub(crate) async fn seed_rules(&mut self) -> Result<(), StoreError> {
        if self.store.setting(SETTING_RULES_SEEDED).await?.is_some() {
            return Ok(());
        }
        let mut rules = self.stored_rules().await?;
        for seed in seeded_rules() {
            if !rules.iter().any(|r| r.id == seed.id) {
                rules.push(seed);
            }
        }
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutSetting {
            key: SETTING_RULES.into(),
            value: serde_json::to_value(rules).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        });
        unit.push(WriteOp::PutSetting { key: SETTING_RULES_SEEDED.into(), value: true.into() });
        self.commit(unit).await
    }

    /// The URL the call acts on: the tab the user was on when sending (tab routing refines it).
    pub(crate) fn page_url(run: &RunRecord) -> Option<String> {
        run.input.browser_context.as_ref()?.default_tab.as_ref().map(|t| t.url.clone())
    }

    /// The gatekeeper's verdict on one call, from the stored permission state.
    pub(crate) async fn gate(
        &self,
        run: &RunRecord,
        call: &ToolCallRecord,
    ) -> Result<Verdict, StoreError> {
        let rules: Vec<Rule> =
            self.stored_rules().await?.iter().filter_map(StoredRule::parse).collect();
        let user_sensitive: Vec<OriginPattern> = self
            .store
            .setting(SETTING_SENSITIVE)
            .await?
            .and_then(|v| serde_json::from_value::<Vec<String>>(v).ok())
            .unwrap_or_default()
            .iter()
            .filter_map(|p| OriginPattern::parse(p).ok())
            .collect();
        let sensitive = SensitiveOrigins::with_user(user_sensitive);
        let grants = self.grants(&run.thread_id).await?;
        let scope: Vec<Origin> = match self.store.thread(&run.thread_id).await? {
            Some(meta) => meta.scope_origins.iter().filter_map(|o| Origin::parse(o).ok()).collect(),
            None => Vec::new(),
        };
        let page_url = Self::page_url(run);
        let taint = run.taint.taint_of(&call.params);
        let input = GateInput {
            tool: &call.tool_name,
            params: &call.params,
            page_url: page_url.as_deref(),
            policy: run.policy,
            rules: &rules,
            sensitive: &sensitive,
            session_grants: &grants,
            scope_origins: &scope,
            taint: &taint,
        };
        Ok(decide(&input))
    }

    /// Parks the run on a question to the user. The card names `target_origin`, else the
    /// origin of the tab the message was sent from.
    pub(crate) async fn ask_approval(
        &mut self,
        mut run: RunRecord,
        index: usize,
        flags: Vec<ApprovalFlag>,
        target_origin: Option<String>,
        out: &mut Outbox,
    ) -> Result<(), StoreError> {
        let now = self.clock.now_ms();
        let call = run.tools[index].clone();
        let target_origin = target_origin.or_else(|| {
            Self::page_url(&run).and_then(|url| Origin::parse(&url).ok()).map(|o| o.to_string())
        });
        let request = ApprovalRequestPayload {
            tool: call.tool_name.clone(),
            label: self
                .tools
                .get(&call.tool_name)
                .map_or(call.tool_name.clone(), |t| t.label.clone()),
            params: call.params.clone(),
            target_origin,
            flags,
            preview: None,
            deadline_at_ms: now + APPROVAL_TIMEOUT_MS,
            taint: run.taint.taint_of(&call.params),
        };
        let id = super::threads::fresh_id(&*self.ids, "a", ApprovalId::new)?;
        run.approval =
            Some(ApprovalRecord { id: id.clone(), tool_index: index, request: request.clone() });
        Self::transition(&mut run, RunState::WaitingApproval, now)?;
        let mut unit = UnitOfWork::new();
        unit.push(WriteOp::PutRun(Box::new(run.clone())));
        self.commit(unit).await?;
        let event = ApprovalRequestEvent {
            thread_id: run.thread_id.clone(),
            turn_id: run.turn_id.clone(),
            approval_id: id,
            request,
        };
        self.broadcast(AgentEvent::ApprovalRequest(event), out);
        Ok(())
    }

    /// Approvals waiting in a thread, for its snapshot.
    pub(crate) fn pending_approvals(&self, thread: &ThreadId) -> Vec<PendingApproval> {
        self.runs
            .values()
            .filter(|r| &r.thread_id == thread)
            .filter_map(|r| {
                r.approval.as_ref().map(|a| PendingApproval {
                    approval_id: a.id.clone(),
                    turn_id: r.turn_id.clone(),
                    request: a.request.clone(),
                })
            })
            .collect()
    }

    /// When the next approval expires.
    pub(crate) fn next_approval_deadline(&self) -> Option<u64> {
        self.runs
            .values()
            .filter_map(|r| r.approval.as_ref())
            .map(|a| a.request.deadline_at_ms)
            .min()
    }

    /// `approval.response`: the decision, its audit node, the run's next state and the receipt
    /// in one unit; the call runs (or its refusal is written) once that is durable.
    pub(super) async fn respond_to_approval(
        &mut self,
        op: &Op,
        p: &ApprovalResponseParams,
    ) -> Result<Decision, StoreError> {
        let Some(run) = self
            .runs
            .values()
            .find(|r| r.approval.as_ref().is_some_and(|a| a.id == p.approval_id))
            .cloned()
        else {
            return Ok(Decision::rejected(
                op,
                ErrorCode::InvalidCommand,
                format!("approval {} is not waiting for a decision", p.approval_id),
            ));
        };
        self.decide_approval(run, &p.decision, Some(op)).await
    }

    /// Applies a decision (the user's, or a decline at the deadline).
    async fn decide_approval(
        &mut self,
        mut run: RunRecord,
        decision: &ApprovalDecision,
        op: Option<&Op>,
    ) -> Result<Decision, StoreError> {
        let now = self.clock.now_ms();
        let Some(approval) = run.approval.take() else {
            return Err(StoreError::Integrity(format!("run {} has no approval", run.id)));
        };
        let index = approval.tool_index;
        let origin = approval.request.target_origin.clone();
        let mut unit = UnitOfWork::new();
        let (outcome_text, allowed) = match decision {
            ApprovalDecision::Accept => ("accepted".to_owned(), true),
            ApprovalDecision::AcceptForSession => ("accepted for this session".to_owned(), true),
            ApprovalDecision::AcceptForSite => ("accepted for this site".to_owned(), true),
            ApprovalDecision::Decline { note } => (
                match note {
                    Some(note) => format!("declined: {note}"),
                    None => "declined".to_owned(),
                },
                false,
            ),
            ApprovalDecision::Cancel => ("cancelled".to_owned(), false),
        };
        let audit = NodeBody::ApprovalDecision {
            approval_id: approval.id.to_string(),
            decision: outcome_text.clone(),
        };
        let cancel = matches!(decision, ApprovalDecision::Cancel);
        if !cancel {
            // An accepted call's origin joins the thread's scope with the audit node.
            let joins_scope = origin.clone().filter(|_| allowed);
            let add_scope = move |meta: &mut panelot_protocol::engine::ThreadMeta| {
                if let Some(origin) = joins_scope
                    && !meta.scope_origins.contains(&origin)
                {
                    meta.scope_origins.push(origin);
                }
            };
            self.audit_node(&run, audit.clone(), now, add_scope, &mut unit).await?;
        }
        let tool = run.tools[index].tool_name.clone();
        let parsed_origin = origin.as_deref().and_then(|o| Origin::parse(o).ok());
        match decision {
            ApprovalDecision::AcceptForSession => {
                let mut grants = self.grants(&run.thread_id).await?;
                grants.insert(grant_key(&tool, parsed_origin.as_ref()));
                unit.push(WriteOp::PutSetting {
                    key: grants_key(&run.thread_id),
                    value: serde_json::to_value(grants)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                });
            }
            ApprovalDecision::AcceptForSite => {
                let mut rules = self.stored_rules().await?;
                rules.push(StoredRule {
                    id: format!("approval-{}", approval.id),
                    tool: tool.clone(),
                    origin: origin.clone().unwrap_or_else(|| "*".into()),
                    verdict: "allow".into(),
                    source: "approval".into(),
                    created_at_ms: now,
                });
                unit.push(WriteOp::PutSetting {
                    key: SETTING_RULES.into(),
                    value: serde_json::to_value(rules)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                });
            }
            _ => {}
        }
        let mut then = Vec::new();
        let mut events = vec![AgentEvent::ApprovalResolved(ApprovalResolvedEvent {
            thread_id: run.thread_id.clone(),
            approval_id: approval.id.clone(),
            outcome: outcome_text.clone(),
        })];
        if cancel {
            let note = Some("The user cancelled an approval.".to_owned());
            let (end, completed, _) = self
                .ending_unit(
                    &mut run,
                    RunState::Interrupted,
                    StopReason::Interrupted,
                    note,
                    now,
                    Some(audit),
                )
                .await?;
            unit.ops.extend(end.ops);
            for (item, node, result) in completed {
                events.push(AgentEvent::ItemComplete(
                    panelot_protocol::engine::ItemCompleteEvent {
                        thread_id: run.thread_id.clone(),
                        item_id: item,
                        node_id: Some(node),
                        result: Some(result),
                    },
                ));
            }
            events.push(AgentEvent::TurnComplete(panelot_protocol::engine::TurnCompleteEvent {
                thread_id: run.thread_id.clone(),
                turn_id: run.turn_id.clone(),
                stop_reason: StopReason::Interrupted,
            }));
            then.push(FollowUp::Schedule(run.thread_id.clone()));
        } else {
            Self::transition(&mut run, RunState::ExecutingTool, now)?;
            if allowed {
                run.tools[index].approved = true;
                then.push(FollowUp::Dispatch(run.id.clone()));
            } else {
                // The refusal is written like a result, and does not count as a failure.
                run.tools[index].status = crate::store::ToolCallStatus::Dispatched;
                let id = self.new_effect(InFlight::Tool(run.id.clone(), index));
                let message = format!(
                    "The user {outcome_text}. Do not try this call again unless the user asks."
                );
                then.push(FollowUp::Outcome(
                    id,
                    ToolOutcome::Failure {
                        message,
                        details: Some(serde_json::json!({"denied": true})),
                    },
                    super::Author::Engine,
                ));
            }
            unit.push(WriteOp::PutRun(Box::new(run.clone())));
        }
        let answer = match op {
            Some(op) => run_ack(op, &run.thread_id, &run.id),
            None => events.remove(0),
        };
        Ok(Decision { unit, answer, events, then })
    }

    /// Declines every approval whose deadline has passed.
    pub(crate) async fn expire_approvals(&mut self, out: &mut Outbox) {
        let now = self.clock.now_ms();
        let expired: Vec<RunRecord> = self
            .runs
            .values()
            .filter(|r| r.approval.as_ref().is_some_and(|a| a.request.deadline_at_ms <= now))
            .cloned()
            .collect();
        for run in expired {
            let decline =
                ApprovalDecision::Decline { note: Some("no answer within 5 minutes".into()) };
            let run_id = run.id.clone();
            match self.decide_approval(run, &decline, None).await {
                Ok(decision) => {
                    let super::Decision { unit, answer, events, then } = decision;
                    if let Err(err) = self.commit(unit).await {
                        self.fail_run(&run_id, &err.to_string(), out).await;
                        continue;
                    }
                    self.broadcast(answer, out);
                    for event in events {
                        self.broadcast(event, out);
                    }
                    self.follow_ups.extend(then);
                }
                Err(err) => self.fail_run(&run_id, &err.to_string(), out).await,
            }
        }
    }
}
