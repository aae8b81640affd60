//! Tests of the composer's MCP prompts and resources.

use panelot_protocol::engine::ContextKind;
use panelot_protocol::engine::McpAuth;
use panelot_protocol::engine::McpConnectMode;
use panelot_protocol::engine::McpPromptArgumentView;
use panelot_protocol::engine::McpStatus;
use panelot_protocol::engine::Provenance;
use pretty_assertions::assert_eq;

use super::*;

fn sid(n: u32) -> SubmissionId {
    SubmissionId::new(format!("s-{n}")).unwrap()
}

fn argument(name: &str, required: bool) -> McpPromptArgumentView {
    McpPromptArgumentView { name: name.to_owned(), description: None, required }
}

fn prompt(
    server_id: &str,
    name: &str,
    title: &str,
    arguments: Vec<McpPromptArgumentView>,
) -> McpPromptView {
    McpPromptView {
        server_id: server_id.to_owned(),
        name: name.to_owned(),
        title: title.to_owned(),
        description: None,
        arguments,
    }
}

fn resource(server_id: &str, uri: &str) -> McpResourceView {
    McpResourceView {
        server_id: server_id.to_owned(),
        uri: uri.to_owned(),
        name: uri.to_owned(),
        title: uri.to_owned(),
        description: None,
        mime_type: None,
    }
}

fn server(id: &str, name: &str) -> McpServerView {
    McpServerView {
        id: id.to_owned(),
        name: name.to_owned(),
        url: "https://mcp.example/".to_owned(),
        auth: McpAuth::None,
        has_bearer_token: false,
        oauth_client_id: None,
        header_names: Vec::new(),
        enabled: true,
        connect: McpConnectMode::Startup,
        disabled_tools: Vec::new(),
        timeout_ms: 60_000,
        status: McpStatus::Ready { tools: 1 },
        tools: Vec::new(),
        recent_calls: Vec::new(),
        offered_tokens: 0,
    }
}

fn block(label: &str, text: &str) -> ContextBlock {
    ContextBlock {
        kind: ContextKind::McpPrompt,
        label: label.to_owned(),
        origin: None,
        trust: Trust::Untrusted,
        provenance: Provenance::Mcp,
        source_ref: None,
        tab: None,
        content: ContextContent::Text { text: text.to_owned() },
        approx_tokens: None,
    }
}

#[test]
fn a_slash_command_is_a_leading_slash_and_one_word() {
    assert_eq!(slash_query("/"), Some(""));
    assert_eq!(slash_query("/docs:sum"), Some("docs:sum"));
    assert_eq!(slash_query("/docs:sum then"), None, "a space ends the command");
    assert_eq!(slash_query("/a\nb"), None);
    assert_eq!(slash_query(" /docs"), None, "only at the start");
    assert_eq!(slash_query("see /docs"), None);
    assert_eq!(slash_query(""), None);
}

#[test]
fn prompts_are_filtered_by_command_then_name_then_anywhere() {
    let prompts = vec![
        prompt("tools", "summarize", "Summary", vec![]),
        prompt("docs", "greet", "Say hello", vec![]),
        prompt("docs", "summarize", "Summary of docs", vec![]),
        prompt("notes", "daily", "Daily docs digest", vec![]),
    ];
    let names = |query: &str| -> Vec<String> {
        matching_prompts(&prompts, query).into_iter().map(prompt_command).collect()
    };
    assert_eq!(names("").len(), 4);
    assert_eq!(names("docs"), ["/docs:greet", "/docs:summarize", "/notes:daily"]);
    assert_eq!(names("SUM"), ["/tools:summarize", "/docs:summarize"]);
    assert_eq!(names("hello"), ["/docs:greet"], "the title counts too");
    assert_eq!(names("docs:g"), ["/docs:greet"]);
    assert_eq!(names("zzz"), Vec::<String>::new());
}

#[test]
fn menu_keys_move_wrap_choose_and_close() {
    assert_eq!(menu_key("ArrowDown", false, false), Some(MenuKey::Down));
    assert_eq!(menu_key("Enter", false, false), Some(MenuKey::Choose));
    assert_eq!(menu_key("Enter", true, false), None, "Shift+Enter is a newline");
    assert_eq!(menu_key("Enter", false, true), None, "an IME composing keeps its Enter");
    assert_eq!(menu_key("Escape", false, false), Some(MenuKey::Close));
    assert_eq!(menu_key("a", false, false), None);
    assert_eq!(step_selection(0, 3, MenuKey::Up), 2);
    assert_eq!(step_selection(2, 3, MenuKey::Down), 0);
    assert_eq!(step_selection(1, 3, MenuKey::Down), 2);
    assert_eq!(step_selection(7, 3, MenuKey::Choose), 2, "a shorter list keeps a valid entry");
    assert_eq!(step_selection(0, 0, MenuKey::Down), 0);
}

#[test]
fn a_prompt_without_arguments_is_fetched_at_once_and_one_with_arguments_asks_first() {
    let bare = prompt("docs", "today", "Today", vec![]);
    assert_eq!(
        choose_prompt(&bare),
        PromptChoice::Fetch(McpFetch::Prompt { name: "today".into(), arguments: BTreeMap::new() })
    );
    let greet = prompt("docs", "greet", "Greet", vec![argument("who", true)]);
    let PromptChoice::Ask(form) = choose_prompt(&greet) else { panic!("a form") };
    assert_eq!(form.values, [""]);
}

#[test]
fn the_argument_form_needs_its_required_values_and_leaves_out_empty_optional_ones() {
    let greet = prompt(
        "docs",
        "greet",
        "Greet",
        vec![argument("who", true), argument("tone", false), argument("lang", true)],
    );
    let mut form = PromptForm::new(greet);
    form.set(0, "  Ada ".to_owned());
    assert_eq!(form.submit(), None);
    assert_eq!(form.missing, [2], "the empty required one is marked");
    form.set(2, "en".to_owned());
    assert_eq!(form.missing, Vec::<usize>::new(), "typing clears the mark");
    form.set(9, "out of range".to_owned());
    let fetch = form.submit().unwrap();
    let arguments = BTreeMap::from([("lang".into(), "en".into()), ("who".into(), "Ada".into())]);
    assert_eq!(fetch, McpFetch::Prompt { name: "greet".into(), arguments });
    form.set(1, "warm".to_owned());
    let Some(McpFetch::Prompt { arguments, .. }) = form.submit() else { panic!("a prompt") };
    assert_eq!(arguments.get("tone").map(String::as_str), Some("warm"));
}

#[test]
fn the_fetch_op_and_labels_name_the_server_and_what_is_fetched() {
    let fetch = McpFetch::Resource { uri: "mem://readme".into() };
    assert_eq!(fetch_label("docs", &fetch), "mem://readme");
    let op = fetch_op(sid(1), "docs", fetch);
    assert_eq!(
        serde_json::to_value(&op).unwrap(),
        serde_json::json!({"type": "mcp.fetch", "submissionId": "s-1", "serverId": "docs",
            "fetch": {"kind": "resource", "uri": "mem://readme"}})
    );
    let prompt = McpFetch::Prompt { name: "greet".into(), arguments: BTreeMap::new() };
    assert_eq!(fetch_label("docs", &prompt), "/docs:greet");
    assert_eq!(
        serde_json::to_value(list_op(sid(2))).unwrap(),
        serde_json::json!({"type": "mcp.list", "submissionId": "s-2", "serverId": null})
    );
}

#[test]
fn a_fetched_block_becomes_an_untrusted_chip_and_a_refusal_is_kept_with_its_label() {
    let mut fetches = McpFetches::default();
    fetches.started(sid(1), "/docs:greet".to_owned());
    fetches.started(sid(2), "mem://readme".to_owned());
    let other = McpFetchedEvent { submission_id: sid(9), block: block("x", "y") };
    assert_eq!(fetches.fetched(&other), None, "another page's answer is not ours");
    let mut trusted = block("", "Say hello to Ada.");
    trusted.trust = Trust::Trusted;
    let chip = fetches.fetched(&McpFetchedEvent { submission_id: sid(1), block: trusted }).unwrap();
    assert_eq!(chip.label, "/docs:greet", "an empty label is ours");
    assert_eq!(chip.trust, Trust::Untrusted);
    assert_eq!(chip.approx_tokens, Some(5));
    assert_eq!(fetches.pending.len(), 1);
    assert!(!fetches.refused(&sid(1), "answered already"));
    assert!(fetches.refused(&sid(2), "the server is not connected"));
    assert_eq!(
        fetches.refusal,
        Some(("mem://readme".to_owned(), "the server is not connected".to_owned()))
    );
    assert_eq!(fetches.pending, Vec::new());
    fetches.started(sid(3), "/docs:greet".to_owned());
    assert_eq!(fetches.refusal, None, "a new fetch clears the old refusal");
}

#[test]
fn a_send_waits_for_the_fetches_under_way_and_not_for_a_refused_one() {
    let mut fetches = McpFetches::default();
    assert!(!fetches.hold(ComposerAction::Submit), "nothing to wait for");
    fetches.started(sid(1), "mem://readme".to_owned());
    fetches.started(sid(2), "/docs:greet".to_owned());
    assert!(fetches.hold(ComposerAction::Submit));
    fetches.fetched(&McpFetchedEvent { submission_id: sid(1), block: block("", "Read me") });
    assert_eq!(fetches.release(), None, "one more is on its way");
    fetches.fetched(&McpFetchedEvent { submission_id: sid(2), block: block("", "Hello") });
    assert_eq!(fetches.release(), Some(ComposerAction::Submit));
    assert_eq!(fetches.release(), None, "released once");

    // A refused fetch lets the message wait for the user, who sees why.
    fetches.started(sid(3), "mem://gone".to_owned());
    assert!(fetches.hold(ComposerAction::Steer));
    assert!(fetches.refused(&sid(3), "no such resource"));
    assert_eq!(fetches.release(), None);
}

#[test]
fn a_chip_keeps_the_engines_label_and_estimate() {
    let mut given = block("/docs:greet", "Hi");
    given.approx_tokens = Some(40);
    let kept = chip(given, "ignored");
    assert_eq!((kept.label.as_str(), kept.approx_tokens), ("/docs:greet", Some(40)));
}

#[test]
fn the_catalog_asks_when_stale_and_not_while_an_ask_is_awaited() {
    let mut catalog = McpCatalog::default();
    assert!(catalog.needs_asking(0.0));
    catalog.asked(sid(1), 0.0);
    assert!(catalog.loading());
    assert!(!catalog.needs_asking(1_000.0));
    assert!(catalog.needs_asking(LIST_RETRY_MS + 1.0), "an unanswered ask is retried");
    let listed = McpListedEvent {
        submission_id: sid(1),
        prompts: vec![prompt("docs", "greet", "Greet", vec![])],
        resources: vec![],
        failures: vec![McpListFailure { server_id: "down".into(), reason: "timed out".into() }],
    };
    catalog.listed(&listed, 2_000.0);
    assert!(!catalog.loading());
    assert_eq!(catalog.failures.len(), 1);
    assert!(!catalog.needs_asking(2_000.0 + LIST_FRESH_MS - 1.0));
    assert!(catalog.needs_asking(2_000.0 + LIST_FRESH_MS));
    catalog.asked(sid(2), 40_000.0);
    assert!(!catalog.refused(&sid(1), "old"));
    assert!(catalog.refused(&sid(2), "MCP is not available"));
    assert_eq!(catalog.refusal.as_deref(), Some("MCP is not available"));
    assert_eq!(catalog.prompts.len(), 1, "the last listing is kept");
}

#[test]
fn resources_are_grouped_by_server_under_its_name() {
    let resources =
        vec![resource("docs", "mem://a"), resource("gone", "mem://b"), resource("docs", "mem://c")];
    let servers = vec![server("docs", "Docs server")];
    let groups: Vec<(&str, Vec<&str>)> = resources_by_server(&resources, &servers)
        .into_iter()
        .map(|(name, group)| (name, group.into_iter().map(|r| r.uri.as_str()).collect()))
        .collect();
    assert_eq!(groups, [("Docs server", vec!["mem://a", "mem://c"]), ("gone", vec!["mem://b"])]);
}

#[test]
fn choosing_removes_the_slash_command_and_keeps_the_rest() {
    assert_eq!(without_slash_command("/docs:greet"), "");
    assert_eq!(without_slash_command("/docs:greet  and more"), "and more");
    assert_eq!(without_slash_command("plain text"), "plain text");
}
