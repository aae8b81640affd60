//! What the model reads for each kind of result.

use panelot_protocol::ElementRef;
use panelot_protocol::SnapshotId;
use panelot_protocol::content::ActionPhase;
use panelot_protocol::content::ActionResult;
use panelot_protocol::content::BatchResult;
use panelot_protocol::content::ExtractResult;
use panelot_protocol::content::FindHit;
use panelot_protocol::content::FindResult;
use panelot_protocol::content::SnapshotResult;
use serde_json::json;

use panelot_core::engine::ToolStatus;

use super::*;

#[track_caller]
fn check(outcome: ToolOutcome, expect: &str) {
    let text = match outcome.status {
        ToolStatus::Done { content } => format!("ok {content}"),
        ToolStatus::Failed { message, .. } => format!("failed {message}"),
    };
    assert_eq!(text, expect);
}

fn evidence(effect: EffectState, observed: &[&str], url_after: &str) -> ActionEvidence {
    ActionEvidence {
        url_before: "http://127.0.0.1/a".into(),
        url_after: url_after.into(),
        effect,
        observed: observed.iter().map(|s| (*s).to_owned()).collect(),
        settled: true,
        duration_ms: 260,
        dialogs: Vec::new(),
        dialogs_stopped: false,
    }
}

#[test]
fn a_snapshot_goes_to_the_model_as_is_and_its_document_stays_out() {
    let text = "# snapshot s1 · http://127.0.0.1/a\n- button \"Go\" [e1]";
    let result = ExecutorResult::Snapshot(SnapshotResult {
        snapshot_id: SnapshotId::new("s1").unwrap(),
        document_id: "doc-secret".into(),
        generation: 1,
        url: "http://127.0.0.1/a".into(),
        title: "A".into(),
        text: text.into(),
        ref_count: 1,
        folded_regions: 0,
    });
    let outcome = page_result(3, &result);
    let Some(details) = &outcome.details else { panic!() };
    assert_eq!(details["refCount"], 1);
    assert!(!details.to_string().contains("doc-secret"));
    check(outcome, &format!("ok [tabId=3]\n{text}"));
}

#[test]
fn an_action_is_one_line_of_evidence_and_the_diff() {
    let result = ExecutorResult::Action(ActionResult {
        evidence: evidence(
            EffectState::Observed,
            &["text \"Clicked\" appeared"],
            "http://127.0.0.1/a",
        ),
        snapshot_diff: Some("+ - text \"Clicked\"".into()),
    });
    check(
        page_result(3, &result),
        "ok [tabId=3] done, change observed: text \"Clicked\" appeared\nsnapshot changes:\n+ - text \"Clicked\"",
    );
    let mut moved = evidence(EffectState::Dispatched, &[], "http://127.0.0.1/b");
    moved.settled = false;
    let result = ExecutorResult::Action(ActionResult { evidence: moved, snapshot_diff: None });
    check(
        page_result(3, &result),
        "ok [tabId=3] dispatched. URL is now http://127.0.0.1/b. The page had not settled yet; it may still be loading",
    );
}

#[test]
fn dialogs_of_an_action_say_what_the_page_asked_and_what_panelot_answered() {
    let dialog = |kind, message: &str| PageDialog { kind, message: message.into() };
    let mut asked = evidence(EffectState::Dispatched, &[], "http://127.0.0.1/a");
    asked.dialogs = vec![
        dialog(DialogKind::Confirm, "Delete \"all\"?"),
        dialog(DialogKind::Alert, "Nothing was deleted"),
        dialog(DialogKind::Prompt, "Your name?"),
    ];
    let result = ExecutorResult::Action(ActionResult { evidence: asked, snapshot_diff: None });
    let outcome = page_result(3, &result);
    assert_eq!(
        outcome.details.as_ref().map(|d| d["evidence"]["dialogs"][0].clone()),
        Some(json!({"kind": "confirm", "message": "Delete \"all\"?"})),
        "the card gets the dialogs with the evidence"
    );
    check(
        outcome,
        "ok [tabId=3] dispatched\n\
         The page showed confirm(\"Delete \\\"all\\\"?\"); Panelot answered Cancel.\n\
         The page showed alert(\"Nothing was deleted\"); Panelot answered OK.\n\
         The page showed prompt(\"Your name?\"); Panelot answered Cancel (no text).",
    );

    // A page that left through a beforeunload prompt, and one that looped on its dialogs.
    let mut left = evidence(EffectState::Observed, &[], "http://127.0.0.1/b");
    left.dialogs = vec![dialog(DialogKind::Beforeunload, "")];
    let mut looped = evidence(EffectState::Dispatched, &[], "http://127.0.0.1/a");
    looped.dialogs = vec![dialog(DialogKind::Confirm, "Sure?"); DIALOGS_MAX];
    looped.dialogs_stopped = true;
    let batch = ExecutorResult::Batch(BatchResult {
        completed: 2,
        stopped_before: None,
        stop_reason: None,
        evidence: vec![left, looped],
        snapshot_diff: None,
    });
    let sure = "\nThe page showed confirm(\"Sure?\"); Panelot answered Cancel.".repeat(DIALOGS_MAX);
    check(
        page_result(3, &batch),
        &format!(
            "ok [tabId=3] all 2 actions done\n\
             1. done, change observed. URL is now http://127.0.0.1/b\n\
             The page asked to confirm leaving it (beforeunload); Panelot let it leave without \
             asking.\n\
             2. dispatched{sure}\n\
             The page kept opening dialogs: after 8, Panelot made the next one throw an error in \
             the page to end the loop."
        ),
    );
}

#[test]
fn a_page_without_the_dialog_guard_is_not_acted_on() {
    let outcome = dialog_guard_failure(4, &"the page locked window.confirm");
    assert_eq!(
        outcome.details,
        Some(json!({"tabId": 4, "failure": {"code": "safety_boundary_unavailable"}}))
    );
    check(
        outcome,
        "failed [tabId=4] safety_boundary_unavailable: the page locked window.confirm. It did not \
         act. click_trusted and type_trusted answer dialogs through the debugger.",
    );
}

#[test]
fn extract_and_find_say_where_more_is() {
    let result = ExecutorResult::Extract(ExtractResult {
        markdown: "# Title".into(),
        from_char: 0,
        next_char: Some(7),
        total_chars: 20,
    });
    check(
        page_result(1, &result),
        "ok [tabId=1] characters 0–7 of 20; more from fromChar=7\n# Title",
    );
    let result = ExecutorResult::Find(FindResult {
        hits: vec![FindHit {
            line: "- button \"Go\" [e1]".into(),
            element_ref: Some(ElementRef::new("e1").unwrap()),
        }],
        total: 25,
    });
    check(page_result(1, &result), "ok [tabId=1] 25 matches, first 1:\n- button \"Go\" [e1]");
}

#[test]
fn failures_lead_with_the_code_and_say_what_to_do() {
    let failure = ActionFailure {
        code: ActionFailureCode::StaleRef,
        message: "ref e1 is from an earlier page.".into(),
        phase: ActionPhase::Resolve,
        retryable: false,
        details: None,
    };
    check(
        page_failure(2, &failure),
        "failed [tabId=2] stale_ref: ref e1 is from an earlier page. Take a new read_page and use its refs.",
    );
    let failure = ActionFailure {
        code: ActionFailureCode::InvalidTarget,
        message: "no option matches".into(),
        phase: ActionPhase::Execute,
        retryable: false,
        details: Some(json!({"options": ["Japan", "France"]})),
    };
    check(
        page_failure(2, &failure),
        "failed [tabId=2] invalid_target: no option matches.\n{\"options\":[\"Japan\",\"France\"]}",
    );
}

#[test]
fn tabs_list_groups_by_window_and_marks_the_viewed_tab() {
    let tab = |id, window_id, active, title: &str| TabInfo {
        id: Some(id),
        window_id,
        active,
        url: Some(format!("http://127.0.0.1/{id}")),
        pending_url: None,
        title: Some(title.into()),
        status: Some("complete".into()),
        opener_tab_id: None,
    };
    let tabs = [tab(1, 10, true, "Say \"hi\""), tab(2, 10, false, "B"), tab(3, 11, true, "C")];
    check(
        tabs_list(&tabs, Some(11)),
        "ok window 10:\n  [tabId=1] \"Say 'hi'\" http://127.0.0.1/1 (active in its window)\n  [tabId=2] \"B\" http://127.0.0.1/2\nwindow 11 (focused):\n  [tabId=3] \"C\" http://127.0.0.1/3 (the user is viewing it)",
    );
    let raw = json!({"id": 4, "windowId": 1, "active": false, "index": 0, "pinned": false,
        "pendingUrl": "http://127.0.0.1/x", "status": "loading", "incognito": false});
    let parsed: TabInfo = serde_json::from_value(raw).unwrap();
    assert_eq!(parsed.shown_url(), "http://127.0.0.1/x");
}

#[test]
fn elapsed_time_joins_the_details_only() {
    let outcome = with_elapsed(failure("no tab"), 12);
    let ToolStatus::Failed { message, .. } = &outcome.status else { panic!() };
    assert_eq!((message.as_str(), outcome.details), ("no tab", Some(json!({"elapsedMs": 12}))));
}

fn opened_tab(id: u32, opener: Option<u32>) -> TabInfo {
    TabInfo {
        id: Some(id),
        window_id: 1,
        active: false,
        url: Some(format!("https://example.com/{id}")),
        pending_url: None,
        title: Some(format!("Page {id}")),
        status: Some("complete".into()),
        opener_tab_id: opener,
    }
}

#[test]
fn tabs_opened_by_an_action_are_found_by_opener_and_reported() {
    let tab = opened_tab;
    let after = [tab(3, None), tab(9, Some(3)), tab(7, Some(3)), tab(8, Some(5)), tab(4, Some(3))];
    // Tab 4 existed before the action; tab 8 was opened by another tab.
    let opened = opened_by(&[3, 4, 5], &after, 3);
    assert_eq!(opened.iter().map(|t| t.id).collect::<Vec<_>>(), [Some(7), Some(9)]);
    let outcome = with_opened_tabs(ToolOutcome::done("[tabId=3] clicked"), &opened);
    assert_eq!(outcome.opened_tab, Some(9), "page calls go to the newest opened tab");
    let details = outcome.details.clone();
    let ToolStatus::Done { content } = outcome.status else { panic!("success stays") };
    assert_eq!(
        content,
        "[tabId=3] clicked\n[tabId=7] \"Page 7\" https://example.com/7 opened by this action\n\
         [tabId=9] \"Page 9\" https://example.com/9 opened by this action; page tools now use \
         [tabId=9]"
    );
    assert_eq!(details.unwrap()["openedTabs"][1]["tabId"], 9);
    // Nothing opened: the outcome is untouched.
    let same = ToolOutcome::failed("x");
    assert_eq!(with_opened_tabs(same.clone(), &[]), same);
}

#[test]
fn web_origins_are_what_host_permissions_name() {
    assert_eq!(
        web_origin("https://Shop.Example:8443/a?b#c").as_deref(),
        Some("https://shop.example:8443")
    );
    assert_eq!(web_origin("http://user:pw@127.0.0.1:9/x").as_deref(), Some("http://127.0.0.1:9"));
    assert_eq!(web_origin("chrome-extension://abc/chat.html"), None);
    assert_eq!(web_origin("file:///tmp/a.html"), None);
    // Browsers skip any run of slashes after a web scheme, and so does the one origin parser.
    assert_eq!(web_origin("https:///nohost").as_deref(), Some("https://nohost"));
    assert_eq!(web_origin("https://"), None);
}
