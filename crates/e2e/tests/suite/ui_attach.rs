//! Attaching the current page and its selection from the composer: the chat page reads the active
//! tab (`read_page.js` through `chrome.scripting`), shows chips, and the next message carries
//! them to the model as context (the page as a live snapshot the engine takes first).

use std::path::PathBuf;

use panelot_e2e::Browser;
use panelot_testkit::fixture_site::FixtureSite;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const ARTICLE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Article</title></head>
<body><h1>On gardens</h1><p>The article body talks about tomatoes.</p>
<p id="pick">Select me, please.</p></body></html>"#;

#[test]
fn ui_attach_page_and_selection_reach_the_model_as_context() {
    let server = MockProvider::start();
    let site = FixtureSite::start(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures"))
        .expect("start the fixture site");
    site.add_page("/article.html", ARTICLE);
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_extension_page("chat.html").expect("open the chat page");
    browser.wait_ui(
        &page,
        "document.querySelector('#engine-status')?.dataset.engineStatus === 'ready'",
    );
    let steps = json!([
        {"send": {"type": "connection.save", "submissionId": "save", "connection": {
            "id": null, "name": "Mock", "kind": "openai",
            "baseUrl": format!("{}/v1", server.base_url()), "apiKeys": [], "enabled": true,
            "modelIds": ["mock-model"], "customHeaders": null, "quirks": []}},
         "until": "command.ack"},
    ]);
    let result = browser.run_js(&page, &panelot_e2e::conversation::script("e2e-ui-attach", &steps));
    assert_eq!(result["how"], "complete", "{result}");

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
}
