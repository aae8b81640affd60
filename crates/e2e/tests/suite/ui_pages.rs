//! The Leptos UI pages against the real engine: the chat page's thread list follows engine
//! broadcasts, its pin and delete buttons go through the engine client's outbox, the page
//! reconnects by itself after the service worker is killed and sends its saved outbox again when
//! it opens; the options page's forms; and every permission the pages ask Chrome for is one the
//! product's manifest declares.

use std::time::Duration;

use panelot_e2e::Browser;
use panelot_e2e::Flavor;
use panelot_protocol::AgentEvent;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::decode_event;
use serde_json::Value;
use serde_json::json;

const DEADLINE: Duration = Duration::from_secs(30);

fn initialize(submission: &str) -> Value {
    json!({"type": "initialize", "submissionId": submission, "protocol": ENGINE_PROTOCOL,
           "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "e2e-ui"})
}

fn wait(browser: &mut Browser, page: &panelot_testkit::cdp::Page, condition: &str) {
    browser
        .cdp
        .wait_until(page, condition, DEADLINE)
        .unwrap_or_else(|err| panic!("{err:#}\nChromium log:\n{}", browser.log_tail()));
}

/// Saves a connection to the mock provider offering `models`, through `page`'s own port.
fn save_mock_connection(
    browser: &mut Browser,
    page: &panelot_testkit::cdp::Page,
    server: &panelot_testkit::mock_provider::MockProvider,
    models: &[&str],
) {
    let save = json!({"type": "connection.save", "submissionId": "save", "connection": {
        "id": null, "name": "Mock", "kind": "openai", "baseUrl": format!("{}/v1", server.base_url()),
        "apiKeys": [], "enabled": true, "modelIds": models, "customHeaders": null,
        "quirks": []}});
    browser.exchange(page, &[initialize("i1"), save], 2).expect("save the connection");
}

/// The `.thread` row titled `title`, as a JavaScript expression.
fn row(title: &str) -> String {
    format!(
        "[...document.querySelectorAll('.thread-list .thread')].find(r => r.querySelector('.open')?.textContent.includes({title:?}))"
    )
}

#[test]
fn chat_page_thread_list_follows_the_engine_and_reconnects() {
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_ready("chat.html");

    // Another client creates and renames a thread; the page's list shows it from broadcasts.
    let result = browser
        .exchange(
            &page,
            &[initialize("i1"), json!({"type": "thread.create", "submissionId": "c1"})],
            3,
        )
        .expect("create a thread");
    let events: Vec<AgentEvent> = result["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| decode_event(e.clone()).expect("a valid event").event)
        .collect();
    let thread = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::CommandAck(ack) => ack.thread_id.clone(),
            _ => None,
        })
        .expect("the ack names the thread");
    let rename = json!({"type": "thread.update", "submissionId": "r1", "threadId": thread.as_str(),
        "patch": {"title": "From the e2e test"}});
    browser.exchange(&page, &[initialize("i2"), rename], 3).expect("rename the thread");
    wait(&mut browser, &page, &format!("!!{}", row("From the e2e test")));

    // Pin from the page: the command is acknowledged and the row moves to the pinned group.
    browser
        .cdp
        .evaluate(&page, &format!("{}.querySelector('.pin').click()", row("From the e2e test")))
        .expect("click pin");
    wait(
        &mut browser,
        &page,
        "document.querySelector('.thread-list .group')?.dataset.group === 'pinned'",
    );

    // The worker dies; the page reconnects on its own (a second session) and lists the thread again.
    browser.kill_service_worker().expect("kill the service worker");
    wait(
        &mut browser,
        &page,
        "document.querySelector('#engine-status')?.dataset.engineSessions === '2'",
    );
    wait(&mut browser, &page, &format!("!!{}", row("From the e2e test")));

    // Delete from the page: the row asks inline, and the deletion goes once confirmed.
    browser
        .cdp
        .evaluate(&page, &format!("{}.querySelector('.delete').click()", row("From the e2e test")))
        .expect("click delete");
    wait(
        &mut browser,
        &page,
        &format!("!!{}.querySelector('.confirm-delete')", row("From the e2e test")),
    );
    browser
        .cdp
        .evaluate(
            &page,
            &format!("{}.querySelector('.confirm-delete').click()", row("From the e2e test")),
        )
        .expect("confirm the deletion");
    wait(&mut browser, &page, &format!("!{}", row("From the e2e test")));
}

/// A command still in a page's outbox when it closed (no answer yet) is saved in
/// `chrome.storage.session`; the page opened again reads it before its wasm runs (`early.js`),
/// with its client id, and sends it at once.
#[test]
fn chat_page_sends_its_saved_outbox_again_when_it_opens_under_the_same_client_id() {
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_ready("chat.html");
    let result = browser
        .exchange(
            &page,
            &[initialize("i1"), json!({"type": "thread.create", "submissionId": "c1"})],
            3,
        )
        .expect("create a thread");
    let thread = result["events"]
        .as_array()
        .expect("events")
        .iter()
        .find_map(|e| match decode_event(e.clone()).expect("a valid event").event {
            AgentEvent::CommandAck(ack) => ack.thread_id,
            _ => None,
        })
        .expect("the ack names the thread");
    let client_id =
        "chrome.storage.local.get('panelot.clientId').then((s) => s['panelot.clientId'])";
    let before = browser.run_js(&page, client_id);
    assert!(before.as_str().is_some_and(|id| !id.is_empty()), "{before}");

    // What the page would have saved had it closed before the engine answered this rename.
    let saved = json!([{"type": "thread.update", "submissionId": "saved-before-closing",
        "threadId": thread.as_str(), "patch": {"title": "Renamed from the outbox"}}]);
    browser.run_js(
        &page,
        &format!(
            "chrome.storage.session.set({{'panelot.outbox.chat': {:?}}}).then(() => true)",
            saved.to_string()
        ),
    );
    browser.cdp.call_in(&page.session_id, "Page.reload", json!({})).expect("reload the page");
    wait(&mut browser, &page, &format!("!!{}", row("Renamed from the outbox")));
    assert_eq!(browser.run_js(&page, client_id), before, "the page kept its client id");
}

/// Sets an input's value the way typing does (Leptos listens to `input` events).
fn type_into(selector: &str, value: &str) -> String {
    format!(
        "(() => {{ const el = document.querySelector({selector:?}); el.value = {value:?};
            el.dispatchEvent(new Event('input', {{ bubbles: true }})); return true; }})()"
    )
}

#[test]
fn options_page_saves_a_connection_through_the_engine_and_lists_it_without_its_key() {
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_ready("options.html");
    // With no connection, the form comes first.
    wait(&mut browser, &page, "!!document.querySelector('.first-run')");
    // A server of one's own: the custom provider (no key required, no URL proposed).
    browser
        .cdp
        .evaluate(&page, &choose(".connection-form select[name=provider]", "custom", "change"))
        .expect("pick");
    wait(
        &mut browser,
        &page,
        "document.querySelector('.connection-form [name=base-url]')?.value === ''",
    );
    for (selector, value) in [
        (".connection-form [name=name]", "Local server"),
        (".connection-form [name=base-url]", "http://127.0.0.1:9/v1"),
        (".connection-form [name=api-key]", "sk-ui-secret"),
        (".connection-form [name=model]", "local-model"),
        (".connection-form textarea.headers", "X-Team: e2e"),
    ] {
        browser.cdp.evaluate(&page, &type_into(selector, value)).expect("type");
    }
    browser
        .cdp
        .evaluate(
            &page,
            "document.querySelector('.connection-form button[type=submit]').click(), true",
        )
        .expect("save");
    // The list shows what the engine stored (the settings.state broadcast), never the key.
    wait(&mut browser, &page, "document.querySelectorAll('.connections li').length === 1");
    let listed = browser
        .cdp
        .evaluate(&page, "document.querySelector('.connections').textContent")
        .expect("read the list");
    let listed = listed.as_str().unwrap_or_default();
    assert!(listed.contains("Local server") && listed.contains("local-model"), "{listed}");
    assert!(!listed.contains("sk-ui-secret"));
    wait(&mut browser, &page, "!document.querySelector('.first-run')");
    // Another client sees the connection and the default model the first one set.
    let result = browser
        .exchange(
            &page,
            &[initialize("i1"), json!({"type": "settings.get", "submissionId": "g"})],
            2,
        )
        .expect("read settings");
    let AgentEvent::SettingsState(state) =
        decode_event(result["events"][1].clone()).expect("valid").event
    else {
        panic!("{result}")
    };
    assert_eq!(state.settings.connections[0].key_count, 1);
    // Header names are case-insensitive; the engine stores them lowercased.
    assert_eq!(state.settings.connections[0].header_names, ["x-team"]);
    assert_eq!(
        state.settings.default_model.map(|m| m.model_id.to_string()).as_deref(),
        Some("local-model")
    );

    // Verify: nothing listens on port 9, and the report says so.
    browser
        .cdp
        .evaluate(&page, "document.querySelector('.connections .verify').click(), true")
        .expect("click verify");
    wait(
        &mut browser,
        &page,
        "document.querySelector('.check-report')?.dataset.state === 'failed'",
    );
    let verdict = browser
        .cdp
        .evaluate(&page, "document.querySelector('.check-report .verdict').textContent")
        .expect("read the verdict");
    assert_eq!(verdict, "The server could not be reached.");

    // Rules: the seeded run_javascript deny is listed; a rule typed in the form is added (the
    // engine checks it), and the seeded one is deleted from its button.
    wait(&mut browser, &page, "!!document.querySelector('[data-rule=seed-deny-run-javascript]')");
    let add = "(() => {
        const set = (sel, v) => { const el = document.querySelector(sel); el.value = v;
            el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true})); };
        set('.rule-tool', 'category:navigate');
        set('.rule-origin', '*.example.com');
        set('.rule-verdict', 'deny');
        document.querySelector('.add-rule').click();
        return true; })()";
    browser.cdp.evaluate(&page, add).expect("add a rule");
    wait(
        &mut browser,
        &page,
        "[...document.querySelectorAll('.rule-list li')].some(li => li.textContent.includes('Moving between pages and tabs') && li.textContent.includes('on *.example.com') && li.textContent.includes('Deny') && li.title === 'category:navigate @ *.example.com')",
    );
    browser
        .cdp
        .evaluate(
            &page,
            "document.querySelector('[data-rule=seed-deny-run-javascript] .delete-rule').click(), true",
        )
        .expect("delete the seeded rule");
    wait(&mut browser, &page, "!document.querySelector('[data-rule=seed-deny-run-javascript]')");
}

#[test]
fn chat_page_runs_a_turn_and_answers_the_models_question_from_its_card() {
    use panelot_testkit::mock_provider::MockProvider;
    use panelot_testkit::mock_provider::Reply;
    let server = MockProvider::start();
    let question =
        json!({"questions": [{"question": "Which size?", "options": ["Medium", "Large"]}]});
    server.push(Reply::tool_call("ask_user", question));
    // The title is asked once the turn's first call ended, so before the answer's call.
    server.push(Reply::text("Shirt order"));
    server.push(Reply::text("Ordered the **large** one."));
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_ready("chat.html");
    save_mock_connection(&mut browser, &page, &server, &["mock-model"]);

    // Type and press Enter: the composer sends, the model asks, the card shows.
    browser.cdp.evaluate(&page, &type_into(".composer textarea", "Order the shirt")).expect("type");
    browser
        .cdp
        .evaluate(
            &page,
            "document.querySelector('.composer textarea').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true})), true",
        )
        .expect("press Enter");
    wait(&mut browser, &page, "!!document.querySelector('.interaction-card .question')");
    // The thread list says the thread waits for the user (from the engine's activity).
    wait(
        &mut browser,
        &page,
        "document.querySelector('.thread-list .badge.approval')?.title === 'Waiting for you'",
    );
    let question = browser
        .cdp
        .evaluate(&page, "document.querySelector('.interaction-card legend').textContent")
        .expect("read the question");
    assert_eq!(question, "Which size?");
    browser
        .cdp
        .evaluate(
            &page,
            "[...document.querySelectorAll('.interaction-card .options button')].find(b => b.textContent === 'Large').click(), document.querySelector('.interaction-card .answer').click(), true",
        )
        .expect("answer");
    // The answer reached the model, which finished the turn; the card is gone.
    wait(
        &mut browser,
        &page,
        "[...document.querySelectorAll('.msg.assistant')].some(m => m.innerHTML.includes('<strong>large</strong>'))",
    );
    wait(&mut browser, &page, "!document.querySelector('.interaction-card')");
    wait(&mut browser, &page, "!document.querySelector('.thread-list .badge.approval')");
    let second = server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .find(|body| body.to_string().contains("The user answered"))
        .expect("a request carrying the answer");
    assert!(second.to_string().contains(r#"\"q1\":\"Large\""#), "{second}");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

/// Sets a form control's value and fires the `input` event a user's change fires (the presets
/// form listens to `input` where it bubbles; the composer's selects to `change`).
fn choose(selector: &str, value: &str, event: &str) -> String {
    format!(
        "(() => {{ const el = document.querySelector({selector:?}); el.value = {value:?};
            el.dispatchEvent(new Event({event:?}, {{ bubbles: true }})); return el.value; }})()"
    )
}

/// The chat turns' model calls (the title call has no tools).
fn turn_calls(server: &panelot_testkit::mock_provider::MockProvider) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .filter(|b| b.get("tools").is_some())
        .collect()
}

/// The system prompt of an OpenAI-format request.
fn system_prompt(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "system")
        .map(|m| m["content"].to_string())
        .collect()
}

#[test]
fn a_preset_made_in_the_options_page_gives_a_chat_thread_its_model_and_instructions() {
    use panelot_testkit::mock_provider::MockProvider;
    use panelot_testkit::mock_provider::Reply;
    let server = MockProvider::start();
    for text in ["Hello there.", "Greeting", "Bonjour !", "Bonjour encore."] {
        server.push(Reply::text(text));
    }
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let options = browser.open_ready("options.html");
    save_mock_connection(&mut browser, &options, &server, &["mock-model", "preset-model"]);
    let model_option = ".preset-form select[name=model] option[value$='/preset-model']";
    wait(&mut browser, &options, &format!("!!document.querySelector({model_option:?})"));

    // A save without a name or model is not sent; the form says what is missing.
    browser
        .cdp
        .evaluate(&options, "document.querySelector('.save-preset').click(), true")
        .expect("save");
    wait(
        &mut browser,
        &options,
        "document.querySelector('.preset-form .problems')?.textContent.includes('Name is required.')",
    );
    let model = browser
        .cdp
        .evaluate(&options, &format!("document.querySelector({model_option:?}).value"))
        .expect("read the model option");
    let model = model.as_str().expect("an option value").to_owned();
    for (selector, value, event) in [
        (".preset-form [name=name]", "French", "input"),
        (".preset-form [name=model]", model.as_str(), "change"),
        (".preset-form [name=instructions]", "Always answer in French.", "input"),
        (".preset-form [name=policy]", "always", "change"),
    ] {
        let set = browser.cdp.evaluate(&options, &choose(selector, value, event)).expect("fill");
        assert_eq!(set, value, "{selector}");
    }
    browser
        .cdp
        .evaluate(&options, "document.querySelector('.save-preset').click(), true")
        .expect("save");
    wait(
        &mut browser,
        &options,
        "[...document.querySelectorAll('.preset-list li')].some(li => li.textContent.includes('French') && li.textContent.includes('preset-model · Mock'))",
    );
    wait(
        &mut browser,
        &options,
        "document.querySelector('.preset-form .problems')?.textContent === 'Saved.'",
    );
    let preset_id = browser
        .cdp
        .evaluate(&options, "document.querySelector('.preset-list li').dataset.preset")
        .expect("read the preset id");
    let preset_id = preset_id.as_str().expect("a preset id").to_owned();

    // Edit opens the stored preset; typing keeps the box (and its caret); the families open
    // once the default is unticked; Cancel empties the form again.
    browser
        .cdp
        .evaluate(&options, "document.querySelector('.preset-list .edit-preset').click(), true")
        .expect("edit");
    wait(
        &mut browser,
        &options,
        "document.querySelector('.preset-form [name=name]').value === 'French' && document.querySelector('.preset-form [name=instructions]').value === 'Always answer in French.' && document.querySelector('.save-preset').textContent === 'Save' && !!document.querySelector('.cancel-preset')",
    );
    let typed = browser
        .cdp
        .evaluate(
            &options,
            "(() => { const el = document.querySelector('.preset-form [name=name]'); el.focus();
                el.value = 'Frenchy'; el.setSelectionRange(2, 2);
                el.dispatchEvent(new Event('input', { bubbles: true })); window.__nameBox = el;
                return true; })()",
        )
        .expect("type");
    assert_eq!(typed, true);
    wait(
        &mut browser,
        &options,
        "document.querySelector('.preset-form [name=name]') === window.__nameBox && document.activeElement === window.__nameBox && window.__nameBox.value === 'Frenchy' && window.__nameBox.selectionStart === 2",
    );
    assert_eq!(
        browser
            .cdp
            .evaluate(&options, "document.querySelector('.preset-form .families').disabled")
            .expect("read the families"),
        true
    );
    browser
        .cdp
        .evaluate(
            &options,
            "document.querySelector('.preset-form [name=default-tools]').click(), true",
        )
        .expect("untick the default");
    wait(
        &mut browser,
        &options,
        "!document.querySelector('.preset-form .families').disabled && document.querySelector('.preset-form [name=tool-l0]').checked && !document.querySelector('.preset-form [name=tool-l2]').checked",
    );
    browser
        .cdp
        .evaluate(&options, "document.querySelector('.cancel-preset').click(), true")
        .expect("cancel");
    wait(
        &mut browser,
        &options,
        "document.querySelector('.preset-form [name=name]').value === '' && document.querySelector('.preset-form [name=model]').value === '' && document.querySelector('.preset-form .families').disabled && document.querySelector('.save-preset').textContent === 'Add preset' && !document.querySelector('.cancel-preset')",
    );

    // The chat: a first message runs on the default model, without the instructions.
    let chat = browser.open_ready("chat.html");
    let send = |browser: &mut Browser, text: &str| {
        browser.cdp.evaluate(&chat, &type_into(".composer textarea", text)).expect("type");
        browser
            .cdp
            .evaluate(
                &chat,
                "document.querySelector('.composer textarea').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true})), true",
            )
            .expect("press Enter");
    };
    // Without a preset a turn gets the settings' permission mode, and the composer says so.
    wait(
        &mut browser,
        &chat,
        "document.querySelector('.turn-policy option').textContent.endsWith('(default)')",
    );
    send(&mut browser, "Hello");
    wait(&mut browser, &chat, "document.querySelectorAll('.msg.assistant').length === 1");
    // The thread takes the preset: the composer's default model is now the preset's.
    wait(
        &mut browser,
        &chat,
        &format!("!!document.querySelector('.thread-preset option[value={preset_id:?}]')"),
    );
    browser
        .cdp
        .evaluate(&chat, &choose(".thread-preset", &preset_id, "change"))
        .expect("pick the preset");
    wait(
        &mut browser,
        &chat,
        "document.querySelector('.turn-model option').textContent === 'preset-model (preset)' && document.querySelector('.turn-policy option').textContent === 'Ask before every action (preset)'",
    );
    send(&mut browser, "How are you?");
    wait(&mut browser, &chat, "document.querySelectorAll('.msg.assistant').length === 2");
    let calls = turn_calls(&server);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0]["model"], "mock-model");
    assert!(!system_prompt(&calls[0]).contains("Always answer in French."), "{}", calls[0]);
    assert_eq!(calls[1]["model"], "preset-model");
    assert!(system_prompt(&calls[1]).contains("Always answer in French."), "{}", calls[1]);
    assert!(calls[1].to_string().contains("How are you?"));
    // The thread names the preset in its metadata, so a reload keeps it.
    let selected = browser
        .cdp
        .evaluate(&chat, "document.querySelector('.thread-preset').value")
        .expect("read the preset selector");
    assert_eq!(selected, preset_id.as_str());
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

/// Wraps `chrome.permissions.request` in the page, so that each request the page's own code
/// makes is recorded in `window.__asked` with how Chrome answered it: `pending` (a prompt waits
/// for the user), `granted`, `denied`, or `refused: <message>` (Chrome would not even ask).
const RECORD_PERMISSION_REQUESTS: &str = r#"(() => {
    window.__asked = [];
    const request = chrome.permissions.request.bind(chrome.permissions);
    chrome.permissions.request = (asked) => {
        const record = { asked, outcome: "pending" };
        window.__asked.push(record);
        try {
            const answer = request(asked);
            answer.then((granted) => { record.outcome = granted ? "granted" : "denied"; },
                (err) => { record.outcome = "refused: " + err.message; });
            return answer;
        } catch (err) {
            record.outcome = "refused: " + err.message;
            throw err;
        }
    };
    return true;
})()"#;

/// The requests recorded by [`RECORD_PERMISSION_REQUESTS`], read after one more round trip to
/// the browser: a refusal comes at once, before the answer to a later call.
const ASKED_SO_FAR: &str = "chrome.permissions.getAll().then(() => new Promise((r) => setTimeout(r))).then(() => window.__asked)";

/// Asserts that Chrome refused none of `asked` for not being in the manifest.
#[track_caller]
fn none_refused(asked: &Value) {
    for record in asked.as_array().expect("the recorded requests") {
        let outcome = record["outcome"].as_str().unwrap_or_default();
        assert!(["pending", "granted", "denied"].contains(&outcome), "{record}");
    }
}

#[test]
fn the_product_manifest_declares_every_permission_the_ui_asks_for() {
    let mut browser =
        Browser::launch_flavor(Flavor::Product).expect("launch Chromium with the product build");

    // Saving a connection asks for its server's origin, as accepting an approval asks for its
    // target's: `{origins: ["<origin>/*"]}`, https or plain http.
    let options = browser.open_ready("options.html");
    browser.cdp.evaluate(&options, RECORD_PERMISSION_REQUESTS).expect("record requests");
    wait(
        &mut browser,
        &options,
        "!!document.querySelector('.connection-form select[name=provider]')",
    );
    browser
        .cdp
        .evaluate(&options, &choose(".connection-form select[name=provider]", "custom", "change"))
        .expect("pick the custom provider");
    for (selector, value) in [
        (".connection-form [name=name]", "Remote server"),
        (".connection-form [name=base-url]", "https://models.example.test/v1"),
        (".connection-form [name=model]", "remote-model"),
    ] {
        browser.cdp.evaluate(&options, &type_into(selector, value)).expect("type");
    }
    browser
        .cdp
        .evaluate(
            &options,
            "document.querySelector('.connection-form button[type=submit]').click(), true",
        )
        .expect("save");
    wait(&mut browser, &options, "document.querySelectorAll('.connections li').length === 1");
    let asked = browser.cdp.evaluate(&options, ASKED_SO_FAR).expect("read the requests");
    assert_eq!(asked[0]["asked"], json!({"origins": ["https://models.example.test/*"]}), "{asked}");
    none_refused(&asked);
    for origin in ["https://devconf.example/*", "http://plain.example.test:8080/*"] {
        let request = format!(
            "(() => {{ chrome.permissions.request({{ origins: [{origin:?}] }}); return true; }})()"
        );
        browser.cdp.evaluate(&options, &request).expect("ask for an origin");
    }
    let asked = browser.cdp.evaluate(&options, ASKED_SO_FAR).expect("read the requests");
    assert_eq!(asked.as_array().map(Vec::len), Some(3), "{asked}");
    none_refused(&asked);

    // Trusted input (the debugger's tools) asks for nothing: the permission is granted at
    // install, and the box only offers the tools to the next turns.
    let chat = browser.open_ready("chat.html");
    browser.cdp.evaluate(&chat, RECORD_PERMISSION_REQUESTS).expect("record requests");
    browser
        .cdp
        .evaluate(&chat, "document.querySelector('.composer .turn-trusted input').click(), true")
        .expect("tick trusted input");
    let asked = browser.cdp.evaluate(&chat, ASKED_SO_FAR).expect("read the requests");
    assert_eq!(asked, json!([]));
    let checked = browser
        .cdp
        .evaluate(&chat, "document.querySelector('.composer .turn-trusted input').checked")
        .expect("read the box");
    assert_eq!(checked, json!(true));
    let debugger = browser
        .cdp
        .evaluate(&chat, "chrome.permissions.contains({ permissions: ['debugger'] })")
        .expect("ask whether the debugger is granted");
    assert_eq!(debugger, json!(true));
    // What Chrome tells the user at install, for the README.
    let warnings = browser
        .cdp
        .evaluate(
            &chat,
            "fetch('manifest.json').then((r) => r.text())
                .then((m) => chrome.management.getPermissionWarningsByManifest(m))",
        )
        .expect("read the install warnings");
    eprintln!("install warnings: {warnings}");
    let warnings = warnings.to_string().to_lowercase();
    assert!(warnings.contains("debugger"), "{warnings}");
}
