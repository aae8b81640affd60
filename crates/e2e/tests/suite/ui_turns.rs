//! Turns driven from the chat page itself, as a person does it: typing in the composer and
//! pressing keys, against the engine in the service worker and the mock provider. Send → a
//! streamed answer rendered as Markdown (highlighted code); steer while running; queue
//! (Shift+Alt+Enter) and edit the queued message; Esc interrupts; edit-and-resend then the ‹n/m›
//! switcher; an approval answered from the keyboard; every message carries its browser context.
//! Screenshots of the chat page and the side panel in light and dark are saved as artifacts.

use panelot_e2e::Browser;
use panelot_e2e::ui::Modifier;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::cdp::Page;
use panelot_testkit::mock_provider::Gate;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::mock_provider::Reply;
use serde_json::json;

const COMPOSER: &str = ".composer textarea";

/// Saves a connection to the mock server (auto mode, so only the composer's override asks).
fn configure(browser: &mut Browser, page: &Page, base_url: &str) {
    let steps = json!([
        {"send": {"type": "connection.save", "submissionId": "save", "connection": {
            "id": null, "name": "Mock", "kind": "openai", "baseUrl": format!("{base_url}/v1"),
            "apiKeys": ["sk-e2e-secret"], "enabled": true, "modelIds": ["mock-model"],
            "customHeaders": null, "quirks": []}},
         "until": "command.ack"},
        {"send": {"type": "settings.update", "submissionId": "policy",
            "patch": {"permissionPolicy": "auto"}}, "until": "command.ack"},
    ]);
    let script = panelot_e2e::conversation::script("e2e-ui-turns", &steps);
    let result = browser.run_js(page, &script);
    assert_eq!(result["how"], "complete", "{result}");
}

/// Types `text` into the composer and presses Enter with `modifiers`.
fn compose(browser: &mut Browser, page: &Page, text: &str, modifiers: &[Modifier]) {
    browser.type_into(page, COMPOSER, text).expect("type into the composer");
    browser.press(page, "Enter", modifiers).expect("press Enter");
}

/// `.msg.assistant` whose text includes `text`, as a JavaScript boolean.
fn answer_shown(text: &str) -> String {
    format!(
        "[...document.querySelectorAll('.msg.assistant .md')].some(m => m.textContent.includes({text:?}))"
    )
}

fn user_shown(text: &str) -> String {
    format!(
        "[...document.querySelectorAll('.msg.user .text')].some(m => m.textContent.includes({text:?}))"
    )
}

const IDLE: &str =
    "!document.querySelector('.composer .stop') && !!document.querySelector('.composer textarea')";

#[test]
fn ui_turns_from_the_composer_steer_queue_interrupt_branch_and_approve_from_the_keyboard() {
    let server = MockProvider::start();
    let mut browser = Browser::launch().expect("launch Chromium with the extension");
    let page = browser.open_extension_page("chat.html").expect("open the chat page");
    browser.wait_ui(&page, panelot_e2e::side_panel::sel::READY);
    configure(&mut browser, &page, &server.base_url());

    // 1. Send: a draft becomes a thread; the answer streams in and renders as Markdown.
    server.push(Reply::text("**Hello** there.\n\n```rust\nfn main() {}\n```\n"));
    server.push(Reply::text("Greeting"));
    compose(&mut browser, &page, "Say hello", &[]);
    browser.wait_ui(&page, &answer_shown("Hello there."));
    browser.wait_ui(&page, IDLE);
    let rendered = browser.run_js(
        &page,
        "[document.querySelector('.msg.assistant .md strong')?.textContent,
          document.querySelector('.msg.assistant .md pre code .hl-k')?.textContent]",
    );
    assert_eq!(rendered, json!(["Hello", "fn"]));

    // 2. Steer: Enter while the answer streams adds to the running turn.
    let gate = Gate::new();
    server.push(Reply::text("Working on it").then_stall(&gate));
    server.push(Reply::text("Steered answer."));
    compose(&mut browser, &page, "Second task", &[]);
    browser.wait_ui(&page, &answer_shown("Working on it"));
    compose(&mut browser, &page, "also this", &[]);
    browser.wait_ui(&page, "[...document.querySelectorAll('.msg.user.steered .text')].some(m => m.textContent === 'also this')");
    gate.release();
    browser.wait_ui(&page, &answer_shown("Steered answer."));
    browser.wait_ui(&page, IDLE);

    // 3. Queue with Shift+Alt+Enter, edit the queued message in the dock, then Esc interrupts
    //    the running turn and the queued one runs.
    let stall = Gate::new();
    server.push(Reply::text("A long answer").then_stall(&stall));
    server.push(Reply::text("Queued answer."));
    compose(&mut browser, &page, "Third task", &[]);
    browser.wait_ui(&page, &answer_shown("A long answer"));
    compose(&mut browser, &page, "queued one", &[Modifier::Shift, Modifier::Alt]);
    browser.wait_ui(
        &page,
        "document.querySelector('.queue-dock .queued .text')?.textContent === 'queued one'",
    );
    browser.run_js(&page, "document.querySelector('.queue-dock .edit-queued').click()");
    browser.wait_ui(&page, "!!document.querySelector('.queue-dock .queued-edit')");
    browser.run_js(&page, "document.querySelector('.queue-dock .queued-edit').select()");
    browser.type_into(&page, ".queue-dock .queued-edit", "queued and edited").expect("edit");
    browser.press(&page, "Enter", &[]).expect("save the edit");
    browser.wait_ui(
        &page,
        "document.querySelector('.queue-dock .queued .text')?.textContent === 'queued and edited'",
    );
    browser.run_js(&page, &format!("document.querySelector({COMPOSER:?}).focus()"));
    browser.press(&page, "Escape", &[]).expect("press Esc");
    browser.wait_ui(&page, "!!document.querySelector('.turn-note')");
    browser.wait_ui(&page, &user_shown("queued and edited"));
    browser.wait_ui(&page, &answer_shown("Queued answer."));
    browser.wait_ui(&page, "!document.querySelector('.queue-dock')");
    browser.wait_ui(&page, IDLE);
    stall.release();

    // 4. Edit and resend the first message: the new branch shows at once, then 2/2; the
    //    switcher goes back to the first version.
    server.push(Reply::text("Edited answer."));
    // The stream draws the rows near the viewport only: scroll up to the first message.
    browser.run_js(&page, "document.querySelector('.stream').scrollTop = 0");
    browser.wait_ui(
        &page,
        "document.querySelector('.msg.user')?.textContent.includes('Say hello') ?? false",
    );
    browser.run_js(&page, "document.querySelector('.msg.user .edit').click()");
    browser.wait_ui(&page, "!!document.querySelector('.msg.user .edit-box')");
    browser.run_js(&page, "document.querySelector('.msg.user .edit-box').select()");
    browser.type_into(&page, ".msg.user .edit-box", "Say hi instead").expect("edit the message");
    browser.run_js(&page, "document.querySelector('.msg.user .send-edit').click()");
    browser.wait_ui(&page, &answer_shown("Edited answer."));
    browser.wait_ui(
        &page,
        "document.querySelector('.msg.user .branch-switcher span')?.textContent === '2/2'",
    );
    assert_eq!(
        browser.run_js(&page, "document.querySelectorAll('.msg.user').length"),
        json!(1),
        "the new branch holds the edited message only"
    );
    browser.run_js(
        &page,
        "document.querySelector('.msg.user .branch-switcher button[aria-label=previous]').click()",
    );
    // The other branch is shown where the person is: the message whose switcher was pressed
    // stays in view (the list does not jump to the branch's end).
    browser.wait_ui(
        &page,
        "(() => { const s = document.querySelector('.stream').getBoundingClientRect();
            const m = [...document.querySelectorAll('.msg.user')].find((m) =>
                m.querySelector('.branch-switcher span')?.textContent === '1/2');
            if (!m) return false;
            const r = m.getBoundingClientRect();
            return r.bottom > s.top && r.top < s.bottom; })()",
    );
    browser.wait_ui(&page, &user_shown("Say hello"));
    browser.wait_ui(
        &page,
        &format!(
            "(() => {{ const s = document.querySelector('.stream'); s.scrollTop = s.scrollHeight;
                return {}; }})()",
            answer_shown("Queued answer.")
        ),
    );

    // 5. A turn under the composer's "always ask" override: the approval card takes the
    //    keyboard at once, and Y accepts it.
    server.push(Reply::tool_call("tabs_list", json!({})));
    server.push(Reply::text("Tabs listed."));
    browser.run_js(
        &page,
        "(() => { const s = document.querySelector('.composer .turn-policy'); s.value = 'always';
            s.dispatchEvent(new Event('change', { bubbles: true })); return true; })()",
    );
    compose(&mut browser, &page, "List my tabs", &[]);
    browser.wait_ui(&page, "!!document.querySelector('.approval-card')");
    browser.press(&page, "y", &[]).expect("press Y");
    browser.wait_ui(&page, &answer_shown("Tabs listed."));
    browser.wait_ui(&page, "!document.querySelector('.approval-card')");
    browser.wait_ui(&page, "!!document.querySelector('.activity .step[data-status=done]')");
    assert!(server.violations().is_empty(), "{:?}", server.violations());

    // Sent, steered and queued messages each carried the browser as it was when sent: no web
    // page is open here, so no default tab (the chat page itself never is one).
    let inputs = browser.stored_user_inputs(&page).expect("read the stored messages");
    let texts: Vec<&str> = inputs.iter().map(|i| i.text.as_str()).collect();
    for sent in ["Say hello", "also this", "queued and edited", "List my tabs"] {
        assert!(texts.contains(&sent), "{sent:?} not among {texts:?}");
    }
    for input in &inputs {
        let context = input.browser_context.as_ref();
        assert!(context.is_some_and(|c| c.default_tab.is_none()), "{input:#?}");
    }

    // Screenshots of the chat page and the side panel (as a tab, on the same thread).
    let dir = artifacts_dir();
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = dir.join(format!("chat-{}.png", scheme.name()));
        browser.screenshot(&page, scheme, &path).expect("screenshot the chat page");
        eprintln!("screenshot: {}", path.display());
    }
    let panel = browser.open_extension_page("sidepanel.html").expect("open the side panel page");
    browser.wait_ui(&panel, &answer_shown("Tabs listed."));
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = dir.join(format!("sidepanel-{}.png", scheme.name()));
        browser.screenshot(&panel, scheme, &path).expect("screenshot the side panel");
        eprintln!("screenshot: {}", path.display());
    }

    // Ctrl+E in the side panel moves the thread to the full-page chat and closes the panel
    // (`open` and `close` recorded rather than done, so the page stays to be read).
    browser.run_js(
        &panel,
        "window.open = (url) => { window.__opened = url; return null; };
         window.close = () => { window.__closed = true; }; true",
    );
    browser.press(&panel, "e", &[Modifier::Ctrl]).expect("press Ctrl+E");
    browser.wait_ui(&panel, "window.__closed === true");
    let opened = browser.run_js(&panel, "window.__opened");
    let opened = opened.as_str().unwrap_or_default();
    assert!(opened.starts_with("chat.html?thread="), "{opened}");

    // Ctrl+E in the chat page opens the side panel on the thread, then closes the tab.
    browser.run_js(&page, "window.close = () => { window.__closed = true; }; true");
    browser.press(&page, "e", &[Modifier::Ctrl]).expect("press Ctrl+E");
    browser.wait_ui(&page, "window.__closed === true");
    let thread = opened.trim_start_matches("chat.html?thread=");
    browser.wait_ui(
        &page,
        &format!(
            "chrome.runtime.getContexts({{ contextTypes: ['SIDE_PANEL'] }})
                .then((cs) => cs.some((c) => c.documentUrl.endsWith('sidepanel.html?thread={thread}')))"
        ),
    );
}
