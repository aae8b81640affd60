//! Agent activity, approvals and errors in the real side panel, as a person sees them.
//!
//! * A turn reads a form, is declined one field and allowed the next: its tool calls are one
//!   block whose summary sums them up, each a line saying what and where with its true state
//!   (declined, done), that opens to what the tool returned; no empty answer between the calls,
//!   the usage once; the same after the panel reloads.
//! * The approval card says what will happen in one sentence naming the site; Allow and Decline
//!   on the card, the rest in a menu (opened with the mouse, closed with Escape without
//!   answering), a labelled note that reaches the model, Y from the keyboard.
//! * A failed turn's error card names the connection, keeps the provider's details behind
//!   "Details", stays after a reload, and Retry runs the turn again.
//! * A model call that fails once with HTTP 500 shows "Retrying… (attempt 2)" until the answer
//!   resumes.
//!
//! Screenshots of each in light and dark at 360 and 1280 px go to the artifacts directory.

use std::time::Duration;
use std::time::Instant;

use panelot_e2e::scripted_model::Transcript;
use panelot_e2e::side_panel::Decision;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::side_panel::sel;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::Reply;
use panelot_testkit::mock_provider::Usage;
use serde_json::Value;
use serde_json::json;

const FORM: &str = "<!doctype html><title>Devconf — register</title>
<h1>Register for Devconf</h1>
<form onsubmit=\"return false\">
  <label>Full name <input name=fullname></label>
  <label>Email <input name=email type=email></label>
</form>
<p><a href=\"/pricing\">Pricing</a></p>";

const DEADLINE: Duration = Duration::from_secs(30);

/// Waits until `condition` holds in the panel; fails with the panel's text.
fn wait(p: &mut Panel, condition: &str) {
    let page = p.panel.clone();
    p.browser.wait_ui(&page, condition);
}

fn js(p: &mut Panel, script: &str) -> Value {
    let page = p.panel.clone();
    p.browser.run_js(&page, script)
}

/// A model step that types `text` into the textbox `name` of the page it read.
fn type_into(
    tab: i64,
    name: &'static str,
    text: &'static str,
) -> impl FnOnce(&Transcript) -> Reply + Send {
    move |t| {
        t.act_on("textbox", name, |r| {
            Reply::tool_call("type", json!({"tabId": tab, "ref": r, "text": text}))
                .usage(Usage::new(1000, 20))
        })
    }
}

/// The card's state: its sentence, place, which choices show, the count.
const CARD_STATE: &str = "(() => {
    const c = document.querySelector('.approval-card');
    if (!c) return null;
    const shown = (d) => c.querySelector(`[data-decision=${d}]`)?.checkVisibility() ?? null;
    return {
        sentence: c.querySelector('.approval-sentence')?.textContent,
        place: c.querySelector('.approval-site')?.textContent,
        count: c.querySelector('.approval-count')?.textContent ?? null,
        note: c.querySelector('label.decline-field')?.textContent?.trim(),
        noteInLabel: !!c.querySelector('label.decline-field input.decline-note'),
        accept: shown('accept'), decline: shown('decline'),
        session: shown('accept_for_session'), site: shown('accept_for_site'),
        cancel: shown('cancel'),
        siteLabel: c.querySelector('[data-decision=accept_for_site]')?.textContent?.trim(),
    };
})()";

/// The rows of steps: each block's state and summary, and each line's state and words.
const STEPS: &str = "[...document.querySelectorAll('.activity')].map((a) => ({
    status: a.firstElementChild?.dataset.status,
    summary: a.querySelector('.steps-line')?.textContent ?? null,
    steps: [...a.querySelectorAll('.step')].map((s) =>
        [s.dataset.status, s.querySelector('.step-line').textContent]),
}))";

/// Saves screenshots of the panel in light and dark at 360 and 1280 px wide.
fn screenshots(p: &mut Panel, name: &str) {
    let dir = artifacts_dir();
    let page = p.panel.clone();
    for width in [360, 1280] {
        p.browser.set_viewport(&page, width, 900).expect("set the viewport");
        // The bottom of the stream is what changed.
        p.browser.run_js(&page, "(() => { const s = document.querySelector('.stream'); s.scrollTop = s.scrollHeight; return true; })()");
        for scheme in [Scheme::Light, Scheme::Dark] {
            let path = dir.join(format!("activity-{name}-{width}-{}.png", scheme.name()));
            p.browser.screenshot(&page, scheme, &path).expect("screenshot");
            eprintln!("screenshot: {}", path.display());
        }
    }
    p.browser.clear_viewport(&page).expect("clear the viewport");
}

/// The open thread's id.
fn thread_id(p: &mut Panel) -> String {
    let thread = p.current_thread().expect("list threads").expect("a thread");
    thread["meta"]["id"].as_str().expect("an id").to_owned()
}

/// Loads the panel again on `thread`, as reopening it does.
fn reload_on(p: &mut Panel, thread: &str) {
    js(p, &format!("location.href = 'sidepanel.html?thread={thread}'; true"));
    std::thread::sleep(Duration::from_millis(300));
    wait(p, sel::READY);
}

/// Waits for the approval card and returns its state.
fn card(p: &mut Panel) -> Value {
    let until = Instant::now() + DEADLINE;
    loop {
        let state = js(p, CARD_STATE);
        if !state.is_null() {
            return state;
        }
        assert!(Instant::now() < until, "no approval card:\n{}", p.panel_text());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits until the chat has `turns` completed turns and nothing runs or waits.
fn settled(p: &mut Panel, turns: u64) {
    let until = Instant::now() + DEADLINE;
    loop {
        if let Some(thread) = p.current_thread().expect("list threads")
            && thread["meta"]["stats"]["turns"].as_u64().is_some_and(|n| n >= turns)
            && thread["running"] == false
            && thread["pendingApprovals"] == 0
        {
            return;
        }
        assert!(Instant::now() < until, "the turn did not end:\n{}", p.panel_text());
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn ui_activity_steps_read_as_sentences_with_true_states_and_approvals_ask_in_one_sentence() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    let host = "devconf.act.test";
    p.sites.add_page(host, "/register", FORM);
    let (url, origin) = (p.sites.url(host, "/register"), p.sites.origin(host));
    let site = origin.trim_start_matches("http://").to_owned();
    p.grant(&origin).expect("grant the site");
    let tab = p.open_tab(&url, true).expect("open the form");

    p.model
        .reply(Reply::tool_call("read_page", json!({"tabId": tab.id})).usage(Usage::new(1200, 30)));
    p.model.push(type_into(tab.id, "Full name", "Ada Lovelace"));
    p.model.push(type_into(tab.id, "Email", "ada@example.test"));
    p.model.reply(
        Reply::text("You are registered, with your email only.").usage(Usage::new(1100, 40)),
    );
    p.send("Register me for Devconf").expect("send");

    // The card: one sentence naming the site, the exact origin, Allow and Decline; the rest in
    // a menu; a labelled note.
    let state = card(&mut p);
    assert_eq!(
        state["sentence"],
        json!(format!("Type “Ada Lovelace” into textbox “Full name” on {site}"))
    );
    let place = state["place"].as_str().unwrap_or_default();
    assert!(place.contains(&origin) && place.contains("Devconf — register"), "{state}");
    assert_eq!(state["count"], Value::Null, "one approval: no count");
    assert_eq!(state["note"], json!("Note for Panelot if you decline (optional)"));
    assert_eq!(state["noteInLabel"], json!(true));
    assert_eq!((&state["accept"], &state["decline"]), (&json!(true), &json!(true)));
    assert_eq!(
        (&state["session"], &state["site"], &state["cancel"]),
        (&json!(false), &json!(false), &json!(false))
    );
    assert!(p.offers(Decision::AllowSite).unwrap(), "a call on a site can be allowed there always");
    screenshots(&mut p, "approval");

    // The menu opens with the mouse and closes with Escape without answering.
    p.click_at(sel::CARD_MENU).expect("open the menu");
    wait(
        &mut p,
        "document.querySelector('.approval-card [data-decision=cancel]')?.checkVisibility()",
    );
    let open = js(&mut p, CARD_STATE);
    assert_eq!(
        (&open["session"], &open["site"], &open["cancel"]),
        (&json!(true), &json!(true), &json!(true))
    );
    assert_eq!(
        open["siteLabel"].as_str().map(|l| l.starts_with(&format!("Always allow on {site}"))),
        Some(true),
        "{open}"
    );
    screenshots(&mut p, "approval-menu");
    let page = p.panel.clone();
    p.browser.press(&page, "Escape", &[]).expect("press Escape");
    wait(
        &mut p,
        "!document.querySelector('.approval-card [data-decision=cancel]')?.checkVisibility()",
    );
    assert!(!js(&mut p, CARD_STATE).is_null(), "Escape in the menu closes the menu only");

    // Decline with a note (typed into the labelled field), by mouse.
    p.browser
        .type_into(&page, ".approval-card .decline-note", "Use my email only")
        .expect("type the note");
    p.click_decision(Decision::Decline).expect("decline");
    // The next card is answered from the keyboard.
    let next = card(&mut p);
    let email_sentence = format!("Type “ada@example.test” into textbox “Email” on {site}");
    let until = Instant::now() + DEADLINE;
    let mut next = next;
    while next["sentence"] != json!(email_sentence) {
        assert!(Instant::now() < until, "no card for the email: {next}");
        std::thread::sleep(Duration::from_millis(50));
        next = card(&mut p);
    }
    js(&mut p, "document.activeElement?.blur(); true");
    p.browser.press(&page, "y", &[]).expect("press Y");
    settled(&mut p, 1);
    wait(
        &mut p,
        "[...document.querySelectorAll('.msg.assistant .md')].some((m) => m.textContent.includes('registered'))",
    );
    let typed = p.eval_tab(&tab, "[document.querySelector('[name=fullname]').value, document.querySelector('[name=email]').value]").unwrap();
    assert_eq!(typed, json!(["", "ada@example.test"]), "declined, not typed; allowed, typed");

    // One block of steps with a summary; the lines say what and where, with true states.
    let expected_lines = json!([
        ["done", format!("Read the page on {site}")],
        ["declined", format!("Type “Ada Lovelace” into textbox “Full name” on {site}")],
        ["done", format!("Typed “ada@example.test” into textbox “Email” on {site}")],
    ]);
    let live = js(&mut p, STEPS);
    assert_eq!(live.as_array().map(Vec::len), Some(1), "one row of steps: {live}");
    assert_eq!(live[0]["summary"], json!("Read the page · typed into 1 field · 1 declined"));
    assert_eq!(live[0]["steps"], expected_lines);
    assert_eq!(live[0]["status"], json!("declined"));
    // No empty answer between the calls, the usage once.
    assert_eq!(js(&mut p, "document.querySelectorAll('.msg.assistant').length"), json!(1));
    let usage = js(&mut p, "[...document.querySelectorAll('.usage')].map((u) => u.textContent)");
    assert_eq!(usage, json!(["4300 in · 110 out"]), "the turn's tokens, once");
    // Opening the block, then a step, shows what the tool returned, not its bookkeeping.
    p.click_at(".activity .steps > summary").expect("open the steps");
    wait(&mut p, "document.querySelector('.activity .steps').open");
    p.click_at(".activity .step[data-tool=read_page] > summary").expect("open the read");
    wait(&mut p, "document.querySelector('.step[data-tool=read_page]').open");
    let excerpt = js(
        &mut p,
        "document.querySelector('.step[data-tool=read_page] .step-excerpt')?.textContent ?? ''",
    );
    assert!(excerpt.as_str().is_some_and(|t| t.contains("textbox \"Full name\"")), "{excerpt}");
    let declined = js(
        &mut p,
        "(() => { const s = document.querySelector('.step[data-status=declined]'); s.open = true; return s.querySelector('.step-excerpt')?.textContent ?? ''; })()",
    );
    assert!(
        declined.as_str().is_some_and(|t| t.contains("Use my email only")),
        "the note reached the model: {declined}"
    );
    let text = p.panel_text();
    assert!(!text.contains("elapsedMs") && !text.contains("refCount"), "{text}");
    // Nothing is wider than the panel.
    assert_eq!(
        js(
            &mut p,
            "(() => { const s = document.querySelector('.stream'); return s.scrollWidth <= s.clientWidth; })()"
        ),
        json!(true)
    );
    screenshots(&mut p, "steps");

    // After a reload the block reads the same.
    let thread = thread_id(&mut p);
    reload_on(&mut p, &thread);
    wait(&mut p, "!!document.querySelector('.activity')");
    let reloaded = js(&mut p, STEPS);
    assert_eq!(reloaded, live, "the same rendering after a reload");
    assert_eq!(js(&mut p, "document.querySelectorAll('.usage').length"), json!(1));
}

#[test]
fn ui_activity_errors_stay_with_their_turn_retry_works_and_retries_are_shown() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");

    // A refused key: the card names the connection and what to check, details on demand.
    p.model.reply(Reply::error(
        401,
        json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
            "code": "invalid_api_key"}}),
    ));
    p.send("Hello").expect("send");
    wait(&mut p, "!!document.querySelector('.msg.error')");
    settled(&mut p, 1);
    let error = js(
        &mut p,
        "(() => { const e = document.querySelector('.msg.error'); return {
            title: e.querySelector('header').textContent,
            message: e.querySelector('.error-message').textContent,
            detailsOpen: e.querySelector('.error-details')?.open ?? null,
            details: e.querySelector('.error-details dl')?.textContent ?? '',
            settings: !!e.querySelector('a.open-settings'),
            retry: !!e.querySelector('button.retry'),
        }; })()",
    );
    let message = error["message"].as_str().unwrap_or_default().to_owned();
    assert_eq!(error["title"], json!("The model did not answer"));
    assert!(message.starts_with("Mock: ") && message.contains("API key"), "{error}");
    assert_eq!(error["detailsOpen"], json!(false), "details wait for a click");
    assert!(
        error["details"]
            .as_str()
            .is_some_and(|d| d.contains("401") && d.contains("Incorrect API key provided")),
        "{error}"
    );
    assert_eq!((&error["settings"], &error["retry"]), (&json!(true), &json!(true)));
    assert_eq!(p.panel_text().matches(&message).count(), 1, "the sentence once");
    js(&mut p, "document.querySelector('.msg.error .error-details').open = true; true");
    screenshots(&mut p, "error");

    // After a reload the card is still there, and Retry runs the turn again.
    let thread = thread_id(&mut p);
    reload_on(&mut p, &thread);
    wait(&mut p, "!!document.querySelector('.msg.error')");
    let again = js(&mut p, "document.querySelector('.msg.error .error-message').textContent");
    assert_eq!(again, json!(message));
    p.model.reply(Reply::text("Hello back."));
    wait(&mut p, "!document.querySelector('.msg.error button.retry').disabled");
    p.click_at(".msg.error button.retry").expect("click Retry");
    wait(
        &mut p,
        "[...document.querySelectorAll('.msg.assistant .md')].some((m) => m.textContent.includes('Hello back.'))",
    );
    wait(&mut p, "!document.querySelector('.msg.error')");

    // A model call that fails once is tried again, and the panel says so until it answers.
    p.new_chat().expect("new chat");
    let gate = Gate::new();
    p.model.reply(Reply::error(500, json!({"error": {"message": "upstream boom"}})));
    p.model.reply(Reply::text("After a retry.").held(&gate));
    p.send("Try this").expect("send");
    wait(&mut p, "!!document.querySelector('.msg.retrying')");
    let line = js(&mut p, "document.querySelector('.msg.retrying .retry-line').textContent");
    let line = line.as_str().unwrap_or_default().to_owned();
    assert!(line.ends_with("(attempt 2)") && line.starts_with("Retrying"), "{line}");
    let why = js(&mut p, "document.querySelector('.msg.retrying .retry-why').textContent");
    assert!(why.as_str().is_some_and(|w| w.starts_with("Mock: ")), "{why}");
    // The countdown ends at "Retrying…" while the answer is held.
    wait(
        &mut p,
        "document.querySelector('.msg.retrying .retry-line').textContent === 'Retrying… (attempt 2)'",
    );
    screenshots(&mut p, "retrying");
    gate.release();
    wait(
        &mut p,
        "[...document.querySelectorAll('.msg.assistant .md')].some((m) => m.textContent.includes('After a retry.'))",
    );
    wait(&mut p, "!document.querySelector('.msg.retrying')");
    assert!(!p.panel_text().contains("Retrying"), "{}", p.panel_text());
}
