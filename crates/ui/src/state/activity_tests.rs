//! Tests of activity sentences: what a call does and where, steps' states, group summaries.

use panelot_protocol::engine::ApprovalElement;
use panelot_protocol::engine::ApprovalRequestPayload;
use panelot_protocol::engine::ApprovalTarget;
use panelot_protocol::engine::CallOutcome;
use pretty_assertions::assert_eq;
use serde_json::Value;
use serde_json::json;

use super::*;

fn target(url: &str, elements: &[(&str, &str, bool)]) -> ApprovalTarget {
    ApprovalTarget {
        tab_id: 3,
        url: url.into(),
        title: "Devconf — register".into(),
        elements: elements
            .iter()
            .map(|(role, name, password)| ApprovalElement {
                role: (*role).into(),
                name: (*name).into(),
                password: *password,
                destination: None,
            })
            .collect(),
    }
}

fn sentence(
    lang: Lang,
    tool: &str,
    params: Value,
    target: Option<&ApprovalTarget>,
    done: bool,
) -> String {
    let call = Call { tool, params: Some(&params), target, origin: None };
    call_sentence(lang, &call, done)
}

#[test]
fn a_call_says_what_it_does_and_where() {
    let page = target("https://devconf.example/register?x=1", &[("textbox", "Full name", false)]);
    let typed = json!({"ref": "e4", "text": "Ada Lovelace"});
    assert_eq!(
        sentence(Lang::En, "type", typed.clone(), Some(&page), false),
        "Type “Ada Lovelace” into textbox “Full name” on devconf.example"
    );
    assert_eq!(
        sentence(Lang::En, "type", typed.clone(), Some(&page), true),
        "Typed “Ada Lovelace” into textbox “Full name” on devconf.example"
    );
    assert_eq!(
        sentence(Lang::ZhCn, "type", typed, Some(&page), true),
        "在 devconf.example 上在输入框“Full name”中输入了“Ada Lovelace”"
    );
    let link = target("http://shop.example:8080/", &[("link", "Pricing", false)]);
    assert_eq!(
        sentence(Lang::En, "click", json!({"ref": "e1"}), Some(&link), true),
        "Clicked link “Pricing” on shop.example:8080"
    );
    assert_eq!(
        sentence(Lang::En, "read_page", json!({}), Some(&link), true),
        "Read the page on shop.example:8080"
    );
    // Navigation names where it goes, not where it was.
    assert_eq!(
        sentence(
            Lang::En,
            "navigate",
            json!({"url": "https://docs.example/guide/"}),
            Some(&link),
            true
        ),
        "Went to docs.example/guide/"
    );
    assert_eq!(sentence(Lang::En, "tabs_list", json!({}), None, false), "List the open tabs");
    // The engine's own tools say what they did, in plain words.
    let fetch = json!({"url": "https://docs.example/notes"});
    assert_eq!(sentence(Lang::En, "fetch_url", fetch, None, true), "Fetched docs.example/notes");
    let load = json!({"group": "memory"});
    assert_eq!(
        sentence(Lang::En, "load_tools", load.clone(), None, true),
        "Added the memory tools"
    );
    assert_eq!(sentence(Lang::ZhCn, "load_tools", load, None, false), "添加记忆工具");
    let save = json!({"key": "shoe size", "value": "42"});
    assert_eq!(sentence(Lang::En, "memory_write", save, None, false), "Save the note “shoe size”");
    let delete = json!({"key": "shoe size", "value": ""});
    assert_eq!(
        sentence(Lang::En, "memory_write", delete, None, true),
        "Deleted the note “shoe size”"
    );
    assert_eq!(sentence(Lang::En, "memory_read", json!({}), None, true), "Listed the saved notes");
    let files = json!({"group": "files"});
    assert_eq!(sentence(Lang::En, "load_tools", files, None, true), "Added the file tools");
    let save = json!({"filename": "notes.md", "content": "# Hi"});
    assert_eq!(
        sentence(Lang::En, "artifact_create", save, None, false),
        "Save the file “notes.md”"
    );
    let url = json!({"url": "https://files.example/r.pdf"});
    assert_eq!(sentence(Lang::En, "download", url, None, true), "Downloaded files.example/r.pdf");
    let artifact = json!({"artifact": "notes.md"});
    assert_eq!(sentence(Lang::ZhCn, "download", artifact, None, false), "下载 “notes.md”");
    // A click not resolved yet still reads as a sentence.
    assert_eq!(sentence(Lang::En, "click", json!({"ref": "e1"}), None, false), "Click an element");
    assert_eq!(
        sentence(
            Lang::En,
            "select_option",
            json!({"values": ["Blue", "Red"]}),
            Some(&target("https://a.example", &[("combobox", "Colour", false)])),
            false
        ),
        "Choose “Blue”, “Red” in list “Colour” on a.example"
    );
    assert_eq!(sentence(Lang::En, "wait_for", json!({"timeMs": 1500}), None, true), "Waited 1.5 s");
    // A tool without a sentence of its own says its title.
    assert_eq!(
        sentence(Lang::En, "mcp__notes__write", json!({}), Some(&link), false),
        "write (notes) on shop.example:8080"
    );
    assert_eq!(sentence(Lang::ZhCn, "history_search", json!({}), None, false), "搜索历史记录");
}

#[test]
fn what_is_typed_into_a_password_field_is_never_repeated() {
    let page = target("https://bank.example/login", &[("textbox", "Password", true)]);
    let line =
        sentence(Lang::En, "type", json!({"ref": "e2", "text": "hunter2"}), Some(&page), true);
    assert_eq!(line, "Typed a password into textbox “Password” on bank.example");
    assert!(!line.contains("hunter2"));
}

#[test]
fn page_words_are_cut_put_on_one_line_and_never_read_as_placeholders() {
    let long = "Register now ".repeat(20);
    let page = target("https://a.example", &[("button", &format!("{{site}}\n{long}"), false)]);
    let line = sentence(Lang::En, "click", json!({}), Some(&page), false);
    assert!(line.starts_with("Click button “{site} Register now"), "{line}");
    assert!(line.contains("…” on a.example"), "{line}");
    assert!(!line.contains('\n'));
}

#[test]
fn sites_are_hosts_without_scheme_or_user_name() {
    assert_eq!(
        site_of("https://user:pw@Shop.Example:8443/a?b").as_deref(),
        Some("shop.example:8443")
    );
    assert_eq!(site_of("http://x.test").as_deref(), Some("x.test"));
    assert_eq!(site_of("about:blank").as_deref(), Some("about:blank"));
    assert_eq!(site_of("not a url"), None);
    assert_eq!(site_of("https://"), None);
}

fn request(
    tool: &str,
    params: Value,
    target: Option<ApprovalTarget>,
    origin: Option<&str>,
) -> ApprovalRequestPayload {
    ApprovalRequestPayload {
        tool: tool.into(),
        label: tool.into(),
        params,
        target_origin: origin.map(Into::into),
        target,
        flags: vec![],
        preview: None,
        deadline_at_ms: 0,
        taint: vec![],
    }
}

#[test]
fn an_approval_names_its_site_and_a_call_without_one_says_no_site() {
    let page = target("https://devconf.example/register", &[("textbox", "Full name", false)]);
    let typed = request(
        "type",
        json!({"ref": "e4", "text": "Ada Lovelace"}),
        Some(page),
        Some("https://devconf.example"),
    );
    assert_eq!(
        approval_sentence(Lang::En, &typed),
        "Type “Ada Lovelace” into textbox “Full name” on devconf.example"
    );
    let tabs = request("tabs_list", json!({}), None, None);
    assert_eq!(approval_sentence(Lang::En, &tabs), "List the open tabs");
    // A navigation is judged for where it goes.
    let go = request(
        "navigate",
        json!({"url": "https://mail.example/inbox"}),
        None,
        Some("https://mail.example"),
    );
    assert_eq!(approval_sentence(Lang::En, &go), "Go to mail.example/inbox");
}

fn step(tool: &str, status: StepStatus) -> Step {
    Step {
        key: EntryKey::Local(0),
        tool_name: tool.into(),
        params: None,
        target: None,
        origin: None,
        status,
        excerpt: None,
    }
}

#[test]
fn a_group_sums_up_what_was_done_then_what_was_not() {
    use StepStatus::*;
    let steps = [
        step("read_page", Done),
        step("type", Done),
        step("type", Done),
        step("click", Done),
        step("type", Done),
        step("type", Declined),
        step("click", Failed),
    ];
    assert_eq!(
        group_summary(Lang::En, &steps),
        "Read the page · typed into 3 fields · clicked once · 1 failed · 1 declined"
    );
    assert_eq!(group_status(&steps), Failed);
    let waiting = [step("read_page", Done), step("click", Waiting)];
    assert_eq!(group_summary(Lang::En, &waiting), "Read the page");
    assert_eq!(group_status(&waiting), Waiting);
    assert_eq!(
        group_summary(Lang::ZhCn, &[step("read_page", Done), step("find_in_page", Done)]),
        "读取了 2 次页面"
    );
    assert_eq!(group_status(&[step("tabs_list", Done)]), Done);
}

#[test]
fn every_outcome_has_its_own_state() {
    let states: Vec<&str> = [
        CallOutcome::Done,
        CallOutcome::Failed,
        CallOutcome::Declined,
        CallOutcome::Denied,
        CallOutcome::NotRun,
        CallOutcome::Unknown,
    ]
    .into_iter()
    .map(|o| StepStatus::of(o).name())
    .collect();
    assert_eq!(states, ["done", "failed", "declined", "denied", "not_run", "unknown"]);
    assert_eq!(i18n::text(Lang::En, StepStatus::Waiting.label()), "Waiting for you");
}

#[test]
fn fill_leaves_unknown_braces_as_written() {
    assert_eq!(
        fill(Lang::En, Msg::OnSite, &[("action", "Do {x}"), ("site", "a.example")]),
        "Do {x} on a.example"
    );
}

#[test]
fn one_step_is_a_line_and_several_are_a_block_that_keeps_what_was_opened() {
    let page = target("https://shop.example/", &[("link", "Pricing <b>", false)]);
    let mut click = step("click", StepStatus::Done);
    click.key = EntryKey::Local(1);
    click.target = Some(page);
    click.excerpt = Some("clicked; the page shows <pricing>".into());
    let one = steps_html(Lang::En, std::slice::from_ref(&click), &|_| false);
    assert!(
        one.starts_with(
            "<details class=\"step\" data-status=\"done\" data-tool=\"click\" data-key=\"l-1\">"
        ),
        "{one}"
    );
    assert!(one.contains("Clicked link “Pricing &lt;b&gt;” on shop.example"), "{one}");
    assert!(
        one.contains("<pre class=\"step-excerpt\">clicked; the page shows &lt;pricing&gt;</pre>")
    );
    let mut read = step("read_page", StepStatus::Waiting);
    read.key = EntryKey::Local(2);
    let both = steps_html(Lang::En, &[click, read], &|key| key == "l-1" || key == "l-1-all");
    assert!(
        both.starts_with(
            "<details class=\"steps\" data-status=\"waiting\" data-key=\"l-1-all\" open>"
        ),
        "{both}"
    );
    assert!(both.contains("<span class=\"steps-line\">Clicked once</span><span class=\"step-state\">Waiting for you</span>"), "{both}");
    assert!(both.contains("data-key=\"l-1\" open>"), "the opened step stays open: {both}");
    // A step with nothing to show does not open.
    assert!(
        both.contains(
            "<div class=\"step\" data-status=\"waiting\" data-tool=\"read_page\" data-key=\"l-2\">"
        ),
        "{both}"
    );
}

#[test]
fn an_error_offers_the_settings_when_they_are_what_to_check_and_details_say_what_is_new() {
    use panelot_protocol::engine::ErrorCode;
    use panelot_protocol::engine::ProviderDetails;
    use panelot_protocol::engine::ProviderErrorKind;
    let details = |reason: &str, said: Option<&str>| ProviderDetails {
        status: Some(401),
        request_id: Some("req_1".into()),
        reason: Some(reason.into()),
        upstream_code: None,
        upstream_message: said.map(Into::into),
    };
    let key = details("invalid_key", Some("Incorrect API key provided"));
    assert!(error_needs_settings(
        ErrorCode::ProviderError,
        Some(ProviderErrorKind::Auth),
        Some(&key)
    ));
    let overloaded = details("upstream_error", None);
    assert!(!error_needs_settings(
        ErrorCode::ProviderError,
        Some(ProviderErrorKind::Overloaded),
        Some(&overloaded)
    ));
    assert!(error_needs_settings(ErrorCode::NotConfigured, None, None));
    let message = "Mock: the server rejected the API key (HTTP 401). Check the connection's API key in Settings.";
    assert_eq!(
        error_details(message, Some(&key)),
        [
            (Msg::ErrorStatus, "401".to_owned()),
            (Msg::ErrorReason, "invalid_key".to_owned()),
            (Msg::ErrorUpstreamSaid, "Incorrect API key provided".to_owned()),
            (Msg::ErrorRequestId, "req_1".to_owned()),
        ]
    );
    // What the message already quotes is not said again.
    let quoted = "Mock: refused. The server said: “Incorrect API key provided”";
    assert!(!error_details(quoted, Some(&key)).iter().any(|(m, _)| *m == Msg::ErrorUpstreamSaid));
    assert!(error_details(message, None).is_empty());
}

#[test]
fn an_upload_card_names_the_file_by_its_name_and_keeps_the_call_as_sent() {
    let page = target("https://forms.example/send", &[("button", "Report", false)]);
    let upload = request(
        "upload_file",
        json!({"ref": "e5", "attachment": "att-1"}),
        Some(page),
        Some("https://forms.example"),
    );
    let name_of = |id: &str| (id == "att-1").then(|| "notes.txt".to_owned());
    let named = with_file_names(&upload, name_of);
    assert_eq!(
        approval_sentence(Lang::En, &named),
        "Upload “notes.txt” to button “Report” on forms.example"
    );
    assert_eq!(upload.params["attachment"], "att-1", "the call shown is the one sent");
    // A name the thread does not know is said as the model wrote it.
    let unknown = with_file_names(&upload, |_| None);
    assert_eq!(
        approval_sentence(Lang::En, &unknown),
        "Upload “att-1” to button “Report” on forms.example"
    );
}
