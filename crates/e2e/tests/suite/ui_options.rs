//! The options page in real Chromium: a connection made from a provider template is saved,
//! checked at once (its findings and the server's models on its card), given a model from
//! that list, and chats; a saved connection is edited (renamed with its key kept, a key added)
//! and deleted after asking; prices typed in its Advanced part show what a turn and the
//! conversation cost; the language chosen there reaches a side panel that is already open,
//! without a reload. Screenshots of the page in light and dark at 360 and 1280 px.

use panelot_e2e::Browser;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_protocol::AgentEvent;
use panelot_protocol::ENGINE_PROTOCOL;
use panelot_protocol::ENGINE_SCHEMA_HASH;
use panelot_protocol::decode_event;
use panelot_protocol::engine::ModelPrice;
use panelot_protocol::engine::SettingsView;
use panelot_testkit::cdp::Page;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use panelot_testkit::mock_provider::Usage;
use serde_json::Value;
use serde_json::json;

/// The settings as the engine has them, read through another port of `page`.
fn stored_settings(browser: &mut Browser, page: &Page) -> SettingsView {
    let init = json!({"type": "initialize", "submissionId": "i", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "e2e-options"});
    let result = browser
        .exchange(page, &[init, json!({"type": "settings.get", "submissionId": "g"})], 2)
        .expect("read the settings");
    let AgentEvent::SettingsState(state) =
        decode_event(result["events"][1].clone()).expect("a valid event").event
    else {
        panic!("not the settings: {result}")
    };
    state.settings
}

/// Sets a form control's value the way a person's change does (`input` for text, `change`
/// for selects).
fn set(browser: &mut Browser, page: &Page, selector: &str, value: &str) {
    let script = format!(
        "(() => {{ const el = document.querySelector({selector:?}); el.value = {value:?};
            el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', {{ bubbles: true }}));
            return el.value; }})()"
    );
    assert_eq!(browser.run_js(page, &script), json!(value), "{selector}");
}

fn click(browser: &mut Browser, page: &Page, selector: &str) {
    let script = format!(
        "(() => {{ const el = document.querySelector({selector:?}); el.click(); return !!el; }})()"
    );
    assert_eq!(browser.run_js(page, &script), json!(true), "no {selector}");
}

/// The replies of one check: a streamed answer, the echo tool call (finished with "stop", as
/// local servers finish them) and the answer to its result. The model list is not scripted.
fn push_check(server: &MockProvider) {
    server.push(Reply::text("OK"));
    server.push(Reply::tool_call("echo", json!({"text": "ping"})).finish("stop"));
    server.push(Reply::text("ping"));
}

/// Screenshots of `page` in light and dark, at 360 and 1280 px, the whole page's height.
fn screenshots(browser: &mut Browser, page: &Page, name: &str) {
    let dir = artifacts_dir();
    for width in [360, 1280] {
        let metrics = |height: u64| json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false});
        browser
            .cdp
            .call_in(&page.session_id, "Emulation.setDeviceMetricsOverride", metrics(800))
            .expect("set the width");
        let height = browser.run_js(
            page,
            "new Promise((r) => requestAnimationFrame(() => r(Math.ceil(Math.max(
                document.documentElement.scrollHeight,
                ...[...document.querySelectorAll('.layout.options, .settings')]
                    .map((e) => e.getBoundingClientRect().top + e.scrollHeight))))))",
        );
        let height = height.as_f64().unwrap_or(800.0).clamp(600.0, 6000.0) as u64;
        browser
            .cdp
            .call_in(&page.session_id, "Emulation.setDeviceMetricsOverride", metrics(height))
            .expect("set the height");
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
fn a_connection_from_a_template_is_saved_checked_given_a_listed_model_and_chats() {
    let server = MockProvider::start();
    server.set_models(["mock-model", "mock-large"]);
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let options = browser.open_ready("options.html");

    // First run: the form is open on a provider; Advanced holds the options in plain words.
    browser.wait_ui(&options, "!!document.querySelector('.first-run') && !!document.querySelector('.connection-form select.provider')");
    let first_screen =
        browser.run_js(&options, "document.querySelector('.connection-form').innerText");
    let first_screen = first_screen.as_str().unwrap_or_default().to_owned();
    for raw in ["noStreamOptions", "toolCallsOnStop", "thinkTagReasoning"] {
        assert!(!first_screen.contains(raw), "{raw} on the first screen:\n{first_screen}");
    }
    set(&mut browser, &options, ".connection-form select.provider", "ollama");
    browser.wait_ui(
        &options,
        "document.querySelector('.connection-form [name=name]').value === 'Ollama'
            && document.querySelector('.connection-form [name=base-url]').value === 'http://localhost:11434/v1'
            && document.querySelector('.quirks input[value=noStreamOptions]').checked",
    );
    browser.run_js(
        &options,
        "document.querySelector('.connection-form details.advanced').open = true",
    );
    let advanced = browser.run_js(&options, "document.querySelector('.quirks').innerText");
    assert!(
        advanced.as_str().is_some_and(|t| t.contains("Don't ask for token counts while streaming")),
        "{advanced}"
    );
    screenshots(&mut browser, &options, "first-run");

    // The local server runs elsewhere here: the mock. No key, no model yet.
    let base_url = format!("{}/v1", server.base_url());
    set(&mut browser, &options, ".connection-form [name=base-url]", &base_url);
    push_check(&server);
    click(&mut browser, &options, ".connection-form .save-connection");

    // Saved, then checked at once: every step passed, the server's models offered.
    browser.wait_ui(
        &options,
        "document.querySelectorAll('.connections li.connection[data-connection]').length === 1",
    );
    browser.wait_ui(&options, "document.querySelector('.check-report')?.dataset.state === 'ok'");
    let steps = browser.run_js(
        &options,
        "[...document.querySelectorAll('.check-steps li')].map((li) => li.dataset.state)",
    );
    assert_eq!(steps, json!(["passed", "passed", "passed", "passed"]));
    let listed = browser.run_js(
        &options,
        "[...document.querySelectorAll('.pick-model option')].map((o) => o.value).filter((v) => v)",
    );
    assert_eq!(listed, json!(["mock-model", "mock-large"]));
    assert!(
        !browser
            .run_js(&options, "!!document.querySelector('.first-run')")
            .as_bool()
            .unwrap_or(true)
    );
    let settings = stored_settings(&mut browser, &options);
    let stored = &settings.connections[0];
    assert_eq!((stored.name.as_str(), stored.key_count), ("Ollama", 0));
    assert_eq!(stored.quirks, ["noStreamOptions"]);
    assert!(stored.model_ids.is_empty(), "{stored:?}");
    let requests = server.requests();
    assert!(
        requests.iter().any(|r| r.method == "GET" && r.path.ends_with("/models")),
        "{requests:?}"
    );

    // The model picked from the list is saved and checked again with it.
    push_check(&server);
    set(&mut browser, &options, ".pick-model", "mock-large");
    click(&mut browser, &options, ".use-model");
    browser.wait_ui(
        &options,
        "document.querySelector('.connection-model')?.textContent === 'mock-large'",
    );
    browser.wait_ui(&options, "document.querySelector('.check-report')?.dataset.state === 'ok'");
    let settings = stored_settings(&mut browser, &options);
    assert_eq!(settings.connections[0].model_ids, ["mock-large"]);
    assert_eq!(
        settings.default_model.map(|m| m.model_id.to_string()).as_deref(),
        Some("mock-large")
    );
    screenshots(&mut browser, &options, "connected");

    // And it chats.
    server.push(Reply::text("Hello from the mock."));
    server.push(Reply::text("Greeting"));
    let chat = browser.open_ready("chat.html");
    browser.type_into(&chat, ".composer textarea", "Hello").expect("type");
    browser.press(&chat, "Enter", &[]).expect("press Enter");
    browser.wait_ui(
        &chat,
        "[...document.querySelectorAll('.msg.assistant')].some((m) => m.textContent.includes('Hello from the mock.'))",
    );
    let asked = server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .find(|body| body.to_string().contains("Hello") && body.get("tools").is_some())
        .expect("the chat's model call");
    assert_eq!(asked["model"], "mock-large");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

#[test]
fn a_saved_connection_is_edited_keeping_its_key_and_deleted_after_asking() {
    let server = MockProvider::start();
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let options = browser.open_ready("options.html");
    let init = json!({"type": "initialize", "submissionId": "i", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "e2e-options"});
    let save = json!({"type": "connection.save", "submissionId": "s", "connection": {
        "id": null, "name": "Team", "kind": "openai", "baseUrl": format!("{}/v1", server.base_url()),
        "apiKeys": ["sk-first-1111"], "enabled": true, "modelIds": ["mock-model"],
        "customHeaders": null, "quirks": []}});
    browser.exchange(&options, &[init, save], 2).expect("save a connection");
    browser.wait_ui(
        &options,
        "document.querySelector('.connection .connection-keys')?.textContent === '1 key'",
    );

    // Rename: the stored key shows as a row that cannot be read, and stays.
    click(&mut browser, &options, ".connection .edit-connection");
    browser.wait_ui(&options, "!document.querySelector('.connection-form').hidden && document.querySelectorAll('.connection-form .saved-key').length === 1 && document.querySelector('.connection-form [name=name]').value === 'Team'");
    set(&mut browser, &options, ".connection-form [name=name]", "Renamed");
    push_check(&server);
    click(&mut browser, &options, ".connection-form .save-connection");
    browser.wait_ui(&options, "document.querySelector('.connection .connection-name')?.textContent === 'Renamed' && document.querySelector('.connection-form').hidden");
    browser.wait_ui(&options, "document.querySelector('.check-report')?.dataset.state === 'ok'");
    let settings = stored_settings(&mut browser, &options);
    assert_eq!(
        (settings.connections[0].name.as_str(), settings.connections[0].key_count),
        ("Renamed", 1)
    );
    // The check after the rename went out with the kept key.
    let keys: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.header("authorization").map(str::to_owned))
        .collect();
    assert!(!keys.is_empty() && keys.iter().all(|k| k == "Bearer sk-first-1111"), "{keys:?}");

    // Add a second key next to the kept one.
    click(&mut browser, &options, ".connection .edit-connection");
    browser.wait_ui(&options, "!document.querySelector('.connection-form').hidden && !!document.querySelector('.connection-form .add-key')");
    click(&mut browser, &options, ".connection-form .add-key");
    // The new row takes the focus: typing goes into it.
    browser.wait_ui(&options, "document.querySelectorAll('.connection-form input[name=api-key]').length === 1 && document.activeElement?.name === 'api-key'");
    browser
        .type_into(&options, ".connection-form input[name=api-key]", "sk-second-2222")
        .expect("type the key");
    push_check(&server);
    click(&mut browser, &options, ".connection-form .save-connection");
    browser.wait_ui(
        &options,
        "document.querySelector('.connection .connection-keys')?.textContent === '2 keys'",
    );
    let settings = stored_settings(&mut browser, &options);
    assert_eq!(
        (settings.connections[0].name.as_str(), settings.connections[0].key_count),
        ("Renamed", 2)
    );
    let page_text = browser.run_js(&options, "document.body.innerText");
    assert!(
        !page_text.to_string().contains("sk-first") && !page_text.to_string().contains("sk-second")
    );

    // Delete asks first; Cancel keeps it; confirming deletes it.
    click(&mut browser, &options, ".connection .delete-connection");
    browser.wait_ui(&options, "!!document.querySelector('.confirm-delete-connection')");
    let question =
        browser.run_js(&options, "document.querySelector('.confirm-delete-connection').innerText");
    assert!(question.as_str().is_some_and(|q| q.contains("Delete “Renamed”?")), "{question}");
    click(&mut browser, &options, ".confirm-delete-connection .cancel-delete");
    browser.wait_ui(&options, "!document.querySelector('.confirm-delete-connection')");
    assert_eq!(stored_settings(&mut browser, &options).connections.len(), 1);
    click(&mut browser, &options, ".connection .delete-connection");
    click(&mut browser, &options, ".confirm-delete-connection .confirm-delete");
    browser.wait_ui(&options, "!document.querySelector('.connection[data-connection]')");
    assert!(stored_settings(&mut browser, &options).connections.is_empty());
    // With none left, the form is there again.
    browser.wait_ui(&options, "!!document.querySelector('.first-run') && !document.querySelector('.connection-form').hidden");
}

/// Prices typed in a connection's Advanced part are stored with its model, and a turn with a
/// model that reports usage shows what its answer and the conversation cost.
#[test]
fn prices_set_in_the_options_page_show_the_cost_of_a_turn() {
    let server = MockProvider::start();
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let options = browser.open_ready("options.html");
    let init = json!({"type": "initialize", "submissionId": "i", "protocol": ENGINE_PROTOCOL,
        "schemaHash": ENGINE_SCHEMA_HASH, "clientId": "e2e-options"});
    let save = json!({"type": "connection.save", "submissionId": "s", "connection": {
        "id": null, "name": "Team", "kind": "openai", "baseUrl": format!("{}/v1", server.base_url()),
        "apiKeys": ["sk-first-1111"], "enabled": true, "modelIds": ["mock-model"],
        "customHeaders": null, "quirks": []}});
    browser.exchange(&options, &[init, save], 2).expect("save a connection");
    browser.wait_ui(&options, "!!document.querySelector('.connection .edit-connection')");

    // The person opens the connection, then Advanced, and types the model's prices.
    click(&mut browser, &options, ".connection .edit-connection");
    browser.wait_ui(&options, "!document.querySelector('.connection-form').hidden && !!document.querySelector('.connection-form [name=price-input]')");
    browser.run_js(
        &options,
        "document.querySelector('.connection-form details.advanced').open = true",
    );
    set(&mut browser, &options, ".connection-form [name=price-input]", "3");
    set(&mut browser, &options, ".connection-form [name=price-output]", "15");
    screenshots(&mut browser, &options, "prices");
    push_check(&server);
    click(&mut browser, &options, ".connection-form .save-connection");
    browser.wait_ui(&options, "document.querySelector('.connection-form').hidden");
    browser.wait_ui(&options, "document.querySelector('.check-report')?.dataset.state === 'ok'");
    let settings = stored_settings(&mut browser, &options);
    assert_eq!(
        settings.connections[0].prices,
        [ModelPrice {
            model_id: "mock-model".to_owned(),
            input: 3.0,
            output: 15.0,
            cache_read: None,
            cache_write: None
        }]
    );
    // Opened again, the form shows them.
    click(&mut browser, &options, ".connection .edit-connection");
    browser.wait_ui(&options, "document.querySelector('.connection-form [name=price-input]')?.value === '3' && document.querySelector('.connection-form [name=price-output]')?.value === '15'");

    // A turn: 1,000 tokens in and 100 out at $3 and $15 per million cost $0.0045.
    server.push(Reply::text("Priced answer.").usage(Usage::new(1_000, 100)));
    server.push(Reply::text("Greeting"));
    let chat = browser.open_ready("chat.html");
    browser.type_into(&chat, ".composer textarea", "Hello").expect("type");
    browser.press(&chat, "Enter", &[]).expect("press Enter");
    browser.wait_ui(&chat, "document.querySelector('.thread-cost')?.textContent === '$0.0045'");
    browser.wait_ui(
        &chat,
        "[...document.querySelectorAll('.msg.assistant .usage')].some((u) => u.textContent.includes('$0.0045'))",
    );
    screenshots(&mut browser, &chat, "thread-cost");
    // A second turn adds to the conversation's cost.
    server.push(Reply::text("Again.").usage(Usage::new(2_000, 200)));
    browser.type_into(&chat, ".composer textarea", "Again").expect("type");
    browser.press(&chat, "Enter", &[]).expect("press Enter");
    browser.wait_ui(&chat, "document.querySelector('.thread-cost')?.textContent === '$0.0135'");
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}

/// Whether the page's visible text has Chinese characters, and its `lang`.
const SPOKEN: &str =
    "[document.documentElement.lang, /[\\u4e00-\\u9fff]/.test(document.body.innerText)]";

#[test]
fn the_language_chosen_in_the_options_page_reaches_an_open_side_panel() {
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let panel = browser.open_ready("sidepanel.html");
    assert_eq!(browser.run_js(&panel, SPOKEN), json!(["en", false]));
    let options = browser.open_ready("options.html");
    browser.wait_ui(&options, "document.querySelector('.language-choice option[value=\"zh-CN\"]')?.textContent === '简体中文'");

    set(&mut browser, &options, ".language-choice", "zh-CN");
    browser.wait_ui(&options, "document.documentElement.lang === 'zh-CN' && [...document.querySelectorAll('h2')].some((h) => h.textContent === '语言')");
    // The panel, open all along and never reloaded, now speaks Chinese.
    browser.run_js(&panel, "window.__notReloaded = true");
    browser.wait_ui(&panel, "document.documentElement.lang === 'zh-CN' && /[\\u4e00-\\u9fff]/.test(document.body.innerText)");
    assert_eq!(browser.run_js(&panel, "window.__notReloaded === true"), json!(true));
    let stored = stored_settings(&mut browser, &options);
    assert_eq!(serde_json::to_value(stored.language).unwrap_or(Value::Null), json!("zh-CN"));

    // Back to English, from the page that now reads Chinese.
    set(&mut browser, &options, ".language-choice", "en");
    browser.wait_ui(&panel, "document.documentElement.lang === 'en' && !/[\\u4e00-\\u9fff]/.test(document.body.innerText)");
}
