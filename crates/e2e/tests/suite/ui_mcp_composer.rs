//! MCP prompts and resources from the composer, in real Chromium (#18): with the mock MCP
//! server saved, a leading `/` in the side panel's composer lists its prompt as
//! `/mock-tools:greet`; Escape closes the menu; choosing the prompt opens its argument form,
//! which refuses an empty required argument, and the filled-in prompt becomes a chip that the
//! next message carries to the model fenced as MCP content. The attach menu's "MCP resource…"
//! lists `mem://readme`, which is read into a chip and reaches the model the same way; when the
//! server answers garbage, the read is refused and its reason shows by the text box.
//! A message sent while its resource is still being read waits for it (its chip says so) and
//! carries it, instead of leaving it to the next message.
//! Screenshots of the slash menu, the argument form and the chip in light and dark, in the
//! 360 px side panel and the 1280 px chat page.

use std::time::Duration;
use std::time::Instant;

use panelot_e2e::side_panel::Card;
use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Decision;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::side_panel::TurnHooks;
use panelot_e2e::side_panel::sel;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::cdp::Page;
use panelot_testkit::mock_mcp::Misbehaviour;
use panelot_testkit::mock_mcp::MockMcp;
use panelot_testkit::mock_mcp::MockMcpConfig;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

/// The slash menu's option for the mock's prompt.
const GREET: &str = ".slash-menu .slash-option[data-command='/mock-tools:greet']";
/// The chips of a fetched prompt and resource.
const PROMPT_CHIP: &str = ".attached .chip[data-kind=mcpprompt]";
const RESOURCE_CHIP: &str = ".attached .chip[data-kind=mcpresource]";

/// Saves the mock MCP server as the options page does and waits until it is ready.
fn save_server(p: &mut Panel, url: &str) {
    p.ops(&json!([{"send": {"type": "mcp.save", "submissionId": "s", "server": {
        "id": null, "name": "Mock Tools", "url": url, "auth": "none", "bearerToken": null,
        "enabled": true, "connect": "startup", "disabledTools": []}},
        "until": "command.ack"}]))
        .expect("save the server");
    let until = Instant::now() + DEADLINE;
    loop {
        let settings = p.settings().expect("settings");
        if settings["mcpServers"][0]["status"]["state"] == "ready" {
            return;
        }
        assert!(Instant::now() < until, "the server never got ready: {settings:#}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn wait(p: &mut Panel, page: &Page, selector: &str) {
    p.browser.wait_ui(page, &format!("!!document.querySelector({selector:?})"));
}

fn click(p: &mut Panel, page: &Page, selector: &str) {
    let clicked = p.browser.run_js(
        page,
        &format!("(() => {{ const e = document.querySelector({selector:?}); e?.click(); return !!e; }})()"),
    );
    assert_eq!(clicked, json!(true), "no {selector}");
}

/// Empties the composer as a person deleting the text would (an `input` event follows).
fn clear_composer(p: &mut Panel, page: &Page) {
    p.browser.run_js(
        page,
        "(() => { const t = document.querySelector('.composer textarea'); t.value = '';
            t.dispatchEvent(new Event('input', { bubbles: true })); return true; })()",
    );
}

/// Types `/gre` and picks the prompt with Enter (the first entry is highlighted), then fills in
/// its argument and adds it with Enter; checks the empty argument is refused first. Screenshots
/// each step at `width` when `shots` names the page.
fn add_greet_prompt(p: &mut Panel, page: &Page, who: &str, shots: Option<(&str, u32)>) {
    p.browser.type_into(page, sel::COMPOSER, "/gre").expect("type the slash command");
    wait(p, page, GREET);
    // A screen reader follows the highlighted entry from the text box.
    let active = p.browser.run_js(
        page,
        "document.querySelector('.composer textarea').getAttribute('aria-activedescendant')",
    );
    assert_eq!(active, json!("slash-option-0"));
    let menu = text_of(p, page, ".slash-menu");
    assert!(menu.contains("/mock-tools:greet") && menu.contains("Greets someone."), "{menu}");
    if let Some((name, width)) = shots {
        screenshots(p, page, &format!("{name}-slash-menu"), width);
    }
    p.browser.type_into(page, sel::COMPOSER, "").expect("focus the composer");
    p.browser.press(page, "Enter", &[]).expect("choose the prompt");
    wait(p, page, ".mcp-args input");
    p.browser.wait_ui(page, "document.activeElement?.matches('.mcp-args input')");
    // The choice replaces the typed command at once, not only once the prompt is added.
    let typed = p.browser.run_js(page, "document.querySelector('.composer textarea').value");
    assert_eq!(typed, json!(""), "the slash command stays under the form");
    // Enter on the empty required argument is refused in words.
    p.browser.press(page, "Enter", &[]).expect("submit the empty form");
    wait(p, page, ".mcp-args .mcp-arg-error");
    let form = text_of(p, page, ".mcp-args");
    assert!(form.contains("who") && form.contains("required"), "{form}");
    p.browser.type_into(page, ".mcp-args input", who).expect("type the argument");
    if let Some((name, width)) = shots {
        screenshots(p, page, &format!("{name}-arguments"), width);
    }
    p.browser.type_into(page, ".mcp-args input", "").expect("focus the argument");
    p.browser.press(page, "Enter", &[]).expect("add the prompt");
    wait(p, page, PROMPT_CHIP);
    let chip = text_of(p, page, PROMPT_CHIP);
    assert!(chip.contains("/mock-tools:greet"), "{chip}");
    let left = p.browser.run_js(page, "document.querySelector('.composer textarea').value");
    assert_eq!(left, json!(""), "the slash command left the box");
    if let Some((name, width)) = shots {
        screenshots(p, page, &format!("{name}-chip"), width);
    }
}

fn text_of(p: &mut Panel, page: &Page, selector: &str) -> String {
    let script = format!("document.querySelector({selector:?})?.innerText ?? ''");
    p.browser.run_js(page, &script).as_str().unwrap_or_default().to_owned()
}

/// Screenshots of `page` at `width` × 800 in light and dark.
fn screenshots(p: &mut Panel, page: &Page, name: &str, width: u32) {
    p.browser.set_viewport(page, width, 800).expect("set the size");
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path =
            artifacts_dir().join(format!("composer-mcp-{name}-{}-{width}.png", scheme.name()));
        p.browser.screenshot(page, scheme, &path).expect("screenshot the composer");
        eprintln!("screenshot: {}", path.display());
    }
    p.browser.clear_viewport(page).expect("clear the metrics");
}

/// Whether the model request carrying the user's `message` holds `text` inside an untrusted
/// block of MCP provenance.
fn fenced_as_mcp(p: &Panel, message: &str, text: &str) -> Result<(), String> {
    fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::String(s) => out.push(s),
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(fields) => fields.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let bodies: Vec<Value> = p.server.requests().into_iter().filter_map(|r| r.json).collect();
    // The turn's request, not the one naming the thread (which carries the message alone).
    let carrying: Vec<&Value> = bodies.iter().filter(|b| b.to_string().contains(message)).collect();
    let fenced = carrying.iter().any(|body| {
        let mut texts = Vec::new();
        strings(body, &mut texts);
        texts.iter().any(|t| {
            t.match_indices("provenance=\"mcp\"").any(|(at, _)| {
                let block = t[at..].split("</untrusted-content").next().unwrap_or_default();
                block.contains(text)
            })
        })
    });
    if fenced {
        Ok(())
    } else {
        Err(format!("{text:?} is not fenced as MCP content in any of {carrying:#?}"))
    }
}

fn no_cards(_: &mut Panel, card: &Card) -> anyhow::Result<Decision> {
    anyhow::bail!("no card expected: {card:#?}")
}

#[test]
fn ui_mcp_composer_a_slash_prompt_and_an_attached_resource_reach_the_model_fenced() {
    let mcp = MockMcp::start(MockMcpConfig::default()).expect("start the MCP server");
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    let panel = p.panel.clone();
    // Without an MCP server nothing new shows: no menu for a leading slash, no resource item.
    p.browser.type_into(&panel, sel::COMPOSER, "/").expect("type a slash");
    p.browser.wait_ui(&panel, "document.querySelector('.composer textarea').value === '/'");
    assert_eq!(p.browser.run_js(&panel, "!!document.querySelector('.slash-menu')"), json!(false));
    assert_eq!(
        p.browser.run_js(&panel, "document.querySelector('.attach-mcp-resource')?.hidden"),
        json!(true)
    );
    clear_composer(&mut p, &panel);

    save_server(&mut p, &mcp.url());
    // Escape closes the menu and leaves the text; it opens again once the box is typed anew.
    p.browser.type_into(&panel, sel::COMPOSER, "/").expect("type a slash");
    wait(&mut p, &panel, GREET);
    p.browser.press(&panel, "Escape", &[]).expect("close the menu");
    p.browser.wait_ui(&panel, "!document.querySelector('.slash-menu')");
    assert_eq!(
        p.browser.run_js(&panel, "document.querySelector('.composer textarea').value"),
        json!("/")
    );
    clear_composer(&mut p, &panel);

    add_greet_prompt(&mut p, &panel, "Ada", Some(("sidepanel", 360)));
    p.model.reply(Reply::text("Hello, Ada!"));
    p.run_turn("Use the prompt", &mut no_cards).expect("the turn with the prompt");
    fenced_as_mcp(&p, "Use the prompt", "Say hello to Ada.").unwrap();
    p.browser.wait_ui(&panel, "!document.querySelector('.attached')");

    // The attach menu's resource list: the server's name over its resource; one click reads it.
    click(&mut p, &panel, ".attach-menu");
    click(&mut p, &panel, ".attach-mcp-resource");
    wait(&mut p, &panel, ".mcp-resources .mcp-resource[data-uri='mem://readme']");
    // Server names are headings drawn in capitals.
    let list = text_of(&mut p, &panel, ".mcp-resources").to_lowercase();
    assert!(list.contains("mock tools") && list.contains("mem://readme"), "{list}");
    screenshots(&mut p, &panel, "sidepanel-resources", 360);
    click(&mut p, &panel, ".mcp-resources .mcp-resource[data-uri='mem://readme']");
    wait(&mut p, &panel, RESOURCE_CHIP);
    assert!(text_of(&mut p, &panel, RESOURCE_CHIP).contains("mem://readme"));
    p.model.reply(Reply::text("Read it."));
    p.run_turn("What does the readme say?", &mut no_cards).expect("the turn with the resource");
    fenced_as_mcp(&p, "What does the readme say?", "Read me.").unwrap();

    // The same on the chat page at 1280 px, for the screenshots.
    let chat = p.browser.open_extension_page("chat.html").expect("open the chat page");
    p.browser.wait_ui(&chat, sel::READY);
    add_greet_prompt(&mut p, &chat, "Grace", Some(("chat", 1280)));

    // A server that answers garbage: the read is refused, and the reason shows by the box.
    mcp.misbehave(Misbehaviour::Garbage);
    click(&mut p, &chat, ".attach-menu");
    click(&mut p, &chat, ".attach-mcp-resource");
    wait(&mut p, &chat, ".mcp-resources .mcp-resource[data-uri='mem://readme']");
    click(&mut p, &chat, ".mcp-resources .mcp-resource[data-uri='mem://readme']");
    wait(&mut p, &chat, ".composer .mcp-refusal");
    let refusal = text_of(&mut p, &chat, ".composer .mcp-refusal");
    assert!(refusal.contains("Could not get mem://readme:"), "{refusal}");
    assert_eq!(
        p.browser.run_js(&chat, "document.querySelectorAll('.attached .chip').length"),
        json!(1),
        "only the prompt's chip: nothing was attached, nothing is still busy"
    );
    screenshots(&mut p, &chat, "chat-refusal", 1280);
}

/// Releases the held read once the message waits for it, after checking that nothing went to
/// the model meanwhile and that the busy chip says the message waits.
struct ReleaseTheRead<'m> {
    mcp: &'m MockMcp,
    released: bool,
}

impl TurnHooks for ReleaseTheRead<'_> {
    fn answer(&mut self, p: &mut Panel, card: &Card) -> anyhow::Result<Decision> {
        no_cards(p, card)
    }

    fn poll(&mut self, p: &mut Panel) -> anyhow::Result<()> {
        if self.released {
            return Ok(());
        }
        let panel = p.panel.clone();
        let chip = text_of(p, &panel, ".attached .chip.busy");
        if !chip.contains("Sending once") {
            return Ok(());
        }
        assert!(chip.contains("mem://readme"), "{chip}");
        let sent = p.server.requests().into_iter().filter_map(|r| r.json);
        assert!(!sent.map(|b| b.to_string()).any(|b| b.contains("Summarize the readme")));
        screenshots(p, &panel, "sidepanel-held-send", 360);
        self.mcp.release_reads();
        self.released = true;
        Ok(())
    }
}

#[test]
fn ui_mcp_composer_a_message_sent_while_its_resource_is_read_waits_for_it() {
    let mcp = MockMcp::start(MockMcpConfig::default()).expect("start the MCP server");
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    let panel = p.panel.clone();
    save_server(&mut p, &mcp.url());
    mcp.hold_reads();
    click(&mut p, &panel, ".attach-menu");
    click(&mut p, &panel, ".attach-mcp-resource");
    wait(&mut p, &panel, ".mcp-resources .mcp-resource[data-uri='mem://readme']");
    click(&mut p, &panel, ".mcp-resources .mcp-resource[data-uri='mem://readme']");
    wait(&mut p, &panel, ".attached .chip.busy");

    p.model.reply(Reply::text("Summarized."));
    let mut hooks = ReleaseTheRead { mcp: &mcp, released: false };
    p.run_turn("Summarize the readme", &mut hooks).expect("the turn with the resource");
    assert!(hooks.released, "the message never waited for the read");
    fenced_as_mcp(&p, "Summarize the readme", "Read me.").unwrap();
    // Nothing is left for the next message.
    p.browser.wait_ui(&panel, "!document.querySelector('.attached')");
    let typed = p.browser.run_js(&panel, "document.querySelector('.composer textarea').value");
    assert_eq!(typed, json!(""));
}
