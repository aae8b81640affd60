//! The agent's memory in the options page, in real Chromium: a note is added as a person does
//! it, listed with its text and when it was saved, edited in place, and deleted after a yes on
//! its row (Cancel keeps it); a note written by another page's command (as the agent's notes
//! reach the engine) shows in the open page at once; a new note under a name already used is
//! refused with a reason. Screenshots of the section in light and dark.

use panelot_e2e::Browser;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_protocol::AgentEvent;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::decode_event;
use panelot_protocol::engine::SettingsView;
use panelot_testkit::cdp::Page;
use serde_json::Value;
use serde_json::json;

fn init() -> Value {
    json!({"type": "initialize", "submissionId": "i", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "e2e-memory"})
}

/// The settings as the engine has them, read through another port of `page`.
fn stored_settings(browser: &mut Browser, page: &Page) -> SettingsView {
    let result = browser
        .exchange(page, &[init(), json!({"type": "settings.get", "submissionId": "g"})], 2)
        .expect("read the settings");
    let AgentEvent::SettingsState(state) =
        decode_event(result["events"][1].clone()).expect("a valid event").event
    else {
        panic!("not the settings: {result}")
    };
    state.settings
}

fn notes(browser: &mut Browser, page: &Page) -> Vec<(String, String)> {
    stored_settings(browser, page).memory.into_iter().map(|n| (n.key, n.value)).collect()
}

/// Sets a text box the way typing does (an `input` event).
fn set(browser: &mut Browser, page: &Page, selector: &str, value: &str) {
    let script = format!(
        "(() => {{ const el = document.querySelector({selector:?}); el.value = {value:?};
            el.dispatchEvent(new Event('input', {{ bubbles: true }})); return el.value; }})()"
    );
    assert_eq!(browser.run_js(page, &script), json!(value), "{selector}");
}

fn click(browser: &mut Browser, page: &Page, selector: &str) {
    let script = format!(
        "(() => {{ const el = document.querySelector({selector:?}); el.click(); return !!el; }})()"
    );
    assert_eq!(browser.run_js(page, &script), json!(true), "no {selector}");
}

fn text(browser: &mut Browser, page: &Page, selector: &str) -> String {
    let script = format!("document.querySelector({selector:?})?.innerText ?? ''");
    browser.run_js(page, &script).as_str().unwrap_or_default().to_owned()
}

/// Screenshots of the memory section in light and dark, at 360 and 1280 px.
fn screenshots(browser: &mut Browser, page: &Page, name: &str) {
    let dir = artifacts_dir();
    browser.run_js(page, "document.querySelector('.memory').scrollIntoView()");
    for width in [360, 1280] {
        let metrics =
            json!({"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false});
        browser
            .cdp
            .call_in(&page.session_id, "Emulation.setDeviceMetricsOverride", metrics)
            .expect("set the width");
        browser.run_js(
            page,
            "new Promise((r) => requestAnimationFrame(() => {
                document.querySelector('.memory').scrollIntoView(); r(true); }))",
        );
        for scheme in [Scheme::Light, Scheme::Dark] {
            let path = dir.join(format!("options-{name}-{}-{width}.png", scheme.name()));
            browser.screenshot(page, scheme, &path).expect("screenshot the options page");
            eprintln!("screenshot: {}", path.display());
        }
    }
    browser
        .cdp
        .call_in(&page.session_id, "Emulation.clearDeviceMetricsOverride", json!({}))
        .expect("clear the metrics");
}

#[test]
fn a_note_is_added_edited_and_deleted_in_settings_beside_the_agents_notes() {
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let options = browser.open_ready("options.html");
    browser.wait_ui(&options, "!!document.querySelector('.memory .memory-empty')");
    let intro = text(&mut browser, &options, ".memory .section-intro");
    assert!(intro.starts_with("Notes Panelot keeps across chats."), "{intro}");

    // Add a note as a person does.
    click(&mut browser, &options, ".memory .add-note");
    browser.wait_ui(
        &options,
        "document.activeElement === document.querySelector('.memory input[name=memory-key]')",
    );
    set(&mut browser, &options, ".memory input[name=memory-key]", "Shoe size");
    set(&mut browser, &options, ".memory textarea[name=memory-value]", "EU 42,\nwide fit");
    click(&mut browser, &options, ".memory .save-note");
    browser.wait_ui(&options, "document.querySelector('.memory-note[data-key=\"Shoe size\"] .memory-value')?.innerText === 'EU 42,\\nwide fit' && !document.querySelector('.memory .memory-form')");
    assert_eq!(
        notes(&mut browser, &options),
        vec![("Shoe size".into(), "EU 42,\nwide fit".into())]
    );
    let when = text(&mut browser, &options, ".memory-note .memory-when");
    assert!(when.starts_with("Saved 20"), "{when}");

    // A note another page saves (as the agent's notes reach the engine) shows at once.
    let save = json!({"type": "memory.save", "submissionId": "m1", "key": "favourite shop",
        "value": "The bakery on Main Street"});
    browser.exchange(&options, &[init(), save], 2).expect("save a note from another port");
    browser.wait_ui(
        &options,
        "document.querySelectorAll('.memory-note').length === 2 && !document.querySelector('.memory-empty')",
    );

    // Edit in place: the text changes, the name stays.
    click(&mut browser, &options, ".memory-note[data-key=\"Shoe size\"] .edit-note");
    browser.wait_ui(&options, "document.querySelector('.memory-note.editing textarea')?.value === 'EU 42,\\nwide fit' && document.activeElement?.name === 'memory-value'");
    set(&mut browser, &options, ".memory-note.editing textarea", "EU 43");
    click(&mut browser, &options, ".memory-note.editing .save-note");
    browser.wait_ui(&options, "!document.querySelector('.memory-note.editing') && document.querySelector('.memory-note[data-key=\"Shoe size\"] .memory-value')?.innerText === 'EU 43'");
    assert_eq!(
        notes(&mut browser, &options),
        vec![
            ("Shoe size".into(), "EU 43".into()),
            ("favourite shop".into(), "The bakery on Main Street".into())
        ]
    );

    // A new note under a name in use would replace it: refused, what was typed kept.
    click(&mut browser, &options, ".memory .add-note");
    browser.wait_ui(&options, "!!document.querySelector('.memory input[name=memory-key]')");
    set(&mut browser, &options, ".memory input[name=memory-key]", "favourite shop");
    set(&mut browser, &options, ".memory textarea[name=memory-value]", "somewhere else");
    click(&mut browser, &options, ".memory .save-note");
    browser.wait_ui(&options, "document.querySelector('.memory .problems')?.innerText.includes('already a note named “favourite shop”')");
    assert_eq!(
        browser.run_js(
            &options,
            "document.querySelector('.memory textarea[name=memory-value]').value"
        ),
        json!("somewhere else")
    );
    screenshots(&mut browser, &options, "memory-form");
    click(&mut browser, &options, ".memory .cancel-note");
    browser.wait_ui(&options, "!document.querySelector('.memory .memory-form') && !!document.querySelector('.memory .add-note')");

    // Delete asks on the row; Cancel keeps the note; yes deletes it.
    click(&mut browser, &options, ".memory-note[data-key=\"Shoe size\"] .ask-delete-note");
    browser.wait_ui(&options, "!!document.querySelector('.confirm-delete-note')");
    let question = text(&mut browser, &options, ".confirm-delete-note");
    assert!(question.contains("Delete the note “Shoe size”?"), "{question}");
    screenshots(&mut browser, &options, "memory");
    click(&mut browser, &options, ".confirm-delete-note .cancel-delete");
    browser.wait_ui(&options, "!document.querySelector('.confirm-delete-note')");
    assert_eq!(notes(&mut browser, &options).len(), 2);
    click(&mut browser, &options, ".memory-note[data-key=\"Shoe size\"] .ask-delete-note");
    click(&mut browser, &options, ".confirm-delete-note .confirm-delete");
    browser.wait_ui(&options, "document.querySelectorAll('.memory-note').length === 1");
    assert_eq!(
        notes(&mut browser, &options),
        vec![("favourite shop".into(), "The bakery on Main Street".into())]
    );
}
