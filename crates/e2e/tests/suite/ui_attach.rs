//! The tab a message is about, from the real UI. Attaching the current page and its selection
//! from the composer: the chat page reads the active tab (`read_page.js` through
//! `chrome.scripting`), shows chips, and the next message carries them to the model as context
//! (the page as a live snapshot the engine takes first). Every message typed carries its browser
//! context: the chat page's is the web tab in front, the side panel's the active tab of its own
//! window at the moment of sending, and the model's request names that tab.

use std::path::PathBuf;

use panelot_e2e::Browser;
use panelot_protocol::engine::TabRef;
use panelot_protocol::engine::UserInput;
use panelot_testkit::cdp::Page;
use panelot_testkit::fixture_site::FixtureSite;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const ARTICLE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Article</title></head>
<body><h1>On gardens</h1><p>The article body talks about tomatoes.</p>
<p id="pick">Select me, please.</p></body></html>"#;

const OTHER: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Other page</title></head>
<body><p>Another page of the site.</p></body></html>"#;

/// Saves a connection to the mock server from `page`.
fn configure(browser: &mut Browser, page: &Page, server: &MockProvider) {
    let steps = json!([
        {"send": {"type": "connection.save", "submissionId": "save", "connection": {
            "id": null, "name": "Mock", "kind": "openai",
            "baseUrl": format!("{}/v1", server.base_url()), "apiKeys": [], "enabled": true,
            "modelIds": ["mock-model"], "customHeaders": null, "quirks": []}},
         "until": "command.ack"},
    ]);
    let result = browser.run_js(page, &panelot_e2e::conversation::script("e2e-ui-attach", &steps));
    assert_eq!(result["how"], "complete", "{result}");
}

/// The tab showing `url`, as Chrome reports it (asked from the extension page `page`).
fn tab_showing(browser: &mut Browser, page: &Page, url: &str) -> TabRef {
    let tabs = browser.run_js(page, &format!("chrome.tabs.query({{ url: {url:?} }})"));
    let tab = &tabs[0];
    TabRef {
        tab_id: tab["id"].as_u64().and_then(|n| u32::try_from(n).ok()).expect("a tab id"),
        window_id: tab["windowId"].as_u64().and_then(|n| u32::try_from(n).ok()),
        url: url.to_owned(),
        title: tab["title"].as_str().unwrap_or_default().to_owned(),
    }
}

/// The body of the model request that carries the user's `text`.
fn request_with(server: &MockProvider, text: &str) -> String {
    server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .map(|body| body.to_string())
        .find(|body| body.contains(text))
        .unwrap_or_else(|| panic!("no model request carries {text:?}"))
}

/// The text of the user message carrying `text` in the model request `body`.
fn user_message_with(body: &str, text: &str) -> String {
    fn find(value: &serde_json::Value, text: &str) -> Option<String> {
        match value {
            serde_json::Value::String(s) if s.contains(text) => Some(s.clone()),
            serde_json::Value::Array(items) => items.iter().find_map(|v| find(v, text)),
            serde_json::Value::Object(fields) => fields.values().find_map(|v| find(v, text)),
            _ => None,
        }
    }
    let body: serde_json::Value = serde_json::from_str(body).expect("a JSON request");
    find(&body, text).unwrap_or_else(|| panic!("no message carries {text:?}"))
}

/// Whether `text` names the tab `tab_id` besides its URL `url`: the id as a whole number
/// outside the URL, wherever the engine frames it.
fn names_tab(text: &str, tab_id: u32, url: &str) -> bool {
    let id = tab_id.to_string();
    text.replace(url, " ").split(|c: char| !c.is_ascii_digit()).any(|n| n == id)
}

/// The stored message whose text is `text`.
fn stored_input(browser: &mut Browser, page: &Page, text: &str) -> UserInput {
    let inputs = browser.stored_user_inputs(page).expect("read the stored messages");
    inputs
        .iter()
        .find(|input| input.text == text)
        .cloned()
        .unwrap_or_else(|| panic!("no stored message {text:?} among {inputs:#?}"))
}

#[test]
fn ui_attach_page_and_selection_reach_the_model_as_context() {
    let server = MockProvider::start();
    let site = FixtureSite::start(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
        .expect("start the fixture site");
    site.add_page("/article.html", ARTICLE);
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_extension_page("chat.html").expect("open the chat page");
    browser.wait_ui(&page, panelot_e2e::side_panel::sel::READY);
    configure(&mut browser, &page, &server);

    // The article opens in the foreground, with a selection.
    let article = browser.cdp.open_page(&site.url("/article.html")).expect("open the article");
    browser.run_js(
        &article,
        "(() => { const range = document.createRange();
            range.selectNodeContents(document.querySelector('#pick'));
            getSelection().removeAllRanges(); getSelection().addRange(range); return true; })()",
    );

    browser.run_js(&page, "document.querySelector('.attach-selection').click(), true");
    browser.wait_ui(&page, "!!document.querySelector('.attached .chip[data-kind=selection]')");
    browser.run_js(&page, "document.querySelector('.attach-page').click(), true");
    browser.wait_ui(&page, "!!document.querySelector('.attached .chip[data-kind=page]')");
    let chips = browser.run_js(&page, "document.querySelector('.attached').textContent");
    let chips = chips.as_str().unwrap_or_default();
    assert!(chips.contains("Select me, please.") && chips.contains("Article"), "{chips}");

    server.push(Reply::text("Tomatoes, mostly."));
    server.push(Reply::text("Gardens"));
    browser.type_into(&page, ".composer textarea", "Summarize").expect("type");
    browser.press(&page, "Enter", &[]).expect("send");
    browser.wait_ui(
        &page,
        "[...document.querySelectorAll('.msg.assistant .md')].some(m => m.textContent.includes('Tomatoes, mostly.'))",
    );
    // Sent with the message, the chips are gone; the model saw both blocks.
    browser.wait_ui(&page, "!document.querySelector('.attached')");
    let asked = server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .find(|body| body.to_string().contains("Summarize"))
        .expect("the turn's request");
    let asked = asked.to_string();
    assert!(asked.contains("Select me, please."), "{asked}");
    assert!(asked.contains("talks about tomatoes"), "{asked}");
    // The page came as the executor's snapshot (read by the engine before the first call), so
    // the model has refs to act on, not only the words.
    assert!(asked.contains("# snapshot ") && asked.contains("read_page"), "{asked}");

    // The chat page is a tab itself: the message is about the web page in front of the user,
    // the article, as Chrome reports it when the message was sent.
    let article_url = site.url("/article.html");
    let article_tab = tab_showing(&mut browser, &page, &article_url);
    let sent = stored_input(&mut browser, &page, "Summarize");
    let context = sent.browser_context.expect("the message's browser context");
    assert_eq!(context.default_tab, Some(article_tab));
    assert!(context.captured_at_ms > 0);
    // The attached page is of that same tab: no other tab is referenced.
    assert_eq!(context.referenced_tabs, []);
    assert!(asked.contains(&article_url), "{asked}");
}

#[test]
fn ui_side_panel_messages_carry_the_tab_beside_the_panel_when_sent() {
    let server = MockProvider::start();
    let site = FixtureSite::start(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
        .expect("start the fixture site");
    site.add_page("/article.html", ARTICLE);
    site.add_page("/other.html", OTHER);
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let chat = browser.open_extension_page("chat.html").expect("open the chat page");
    browser.wait_ui(&chat, panelot_e2e::side_panel::sel::READY);
    configure(&mut browser, &chat, &server);

    // The article in front of its window, and the real side panel of that window beside it.
    let article_url = site.url("/article.html");
    let article = browser.cdp.open_page(&article_url).expect("open the article");
    let article_tab = tab_showing(&mut browser, &chat, &article_url);
    let window_id = article_tab.window_id.expect("the article's window");
    let panel = browser.open_side_panel(&chat, u64::from(window_id)).expect("open the side panel");
    browser.wait_ui(&panel, panelot_e2e::side_panel::sel::READY);

    // A message typed in the panel: the model's request names the article's tab, and the
    // engine stored the tab as Chrome reported it.
    server.push(Reply::text("It is about gardens."));
    server.push(Reply::text("Gardens"));
    browser.type_into(&panel, ".composer textarea", "What is this page?").expect("type");
    browser.press(&panel, "Enter", &[]).expect("send");
    browser.wait_ui(
        &panel,
        "[...document.querySelectorAll('.msg.assistant .md')].some(m => m.textContent.includes('It is about gardens.'))",
    );
    let asked =
        user_message_with(&request_with(&server, "What is this page?"), "What is this page?");
    assert!(asked.contains(&article_url), "{asked}");
    assert!(names_tab(&asked, article_tab.tab_id, &article_url), "{asked}");
    let sent = stored_input(&mut browser, &chat, "What is this page?");
    let context = sent.browser_context.expect("the message's browser context");
    assert_eq!(context.default_tab, Some(article_tab.clone()));
    assert_eq!(context.referenced_tabs, []);

    // The tab moves on to another page: the next message is about what it shows when sent,
    // not what it showed when the panel opened.
    let other_url = site.url("/other.html");
    browser.run_js(&article, &format!("location.href = {other_url:?}; true"));
    browser.wait_ui(&chat, &format!("chrome.tabs.query({{ url: {other_url:?} }}).then((t) => t.length === 1 && t[0].status === 'complete')"));
    server.push(Reply::text("Another page."));
    browser.type_into(&panel, ".composer textarea", "And now?").expect("type");
    browser.press(&panel, "Enter", &[]).expect("send");
    browser.wait_ui(
        &panel,
        "[...document.querySelectorAll('.msg.assistant .md')].some(m => m.textContent.includes('Another page.'))",
    );
    let asked = user_message_with(&request_with(&server, "And now?"), "And now?");
    assert!(asked.contains(&other_url), "{asked}");
    assert!(names_tab(&asked, article_tab.tab_id, &other_url), "{asked}");
    let sent = stored_input(&mut browser, &chat, "And now?");
    let context = sent.browser_context.expect("the message's browser context");
    let other_tab = TabRef { url: other_url, title: "Other page".to_owned(), ..article_tab };
    assert_eq!(context.default_tab, Some(other_tab));
    assert!(server.violations().is_empty(), "{:?}", server.violations());
}
