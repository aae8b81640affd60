//! Artifacts and downloads through the product, in real Chromium: the agent saves an HTML page
//! and a Markdown note (`artifact_create`), the side panel shows each as a card (name, kind,
//! size), Open there opens the chat page beside it on that artifact, the chat page's viewer
//! renders Markdown and runs the HTML page's script in a sandbox that can reach neither
//! `chrome.*`, nor the page around it, nor the network; Download on a card saves the file, and
//! the `download` tool saves an artifact and a URL through `chrome.downloads` and says where;
//! `sidebar_open` of `artifact:<name>` opens the chat page's viewer beside the side panel.
//! Screenshots of the cards (side panel, 360 px) and the viewer (chat page, 1280 px) in light and
//! dark.

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;
use std::time::Instant;

use panelot_e2e::side_panel::DEADLINE;
use panelot_e2e::side_panel::Decision;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::cdp::Page;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

/// The HTML artifact: its script reports what it could reach to the page around it (the one
/// thing a sandboxed frame may do), then tries to take its frame to `leak` (a page of the
/// fixture server) as a way out.
fn probe(leak: &str) -> String {
    format!(
        r#"<!doctype html><title>Probe</title>
<h1 id="state">Waiting</h1>
<img src="{leak}pixel.png" alt="">
<script>
  const probe = {{}};
  probe.runtime = !!(window.chrome && chrome.runtime && chrome.runtime.id);
  probe.storage = !!(window.chrome && chrome.storage);
  try {{ probe.parent = parent.document.title; }} catch (e) {{ probe.parent = "blocked"; }}
  fetch("{leak}fetch").then(() => "reached", () => "blocked").then((fetched) => {{
    probe.fetch = fetched;
    document.getElementById("state").textContent = "Script ran";
    parent.postMessage({{ probe }}, "*");
    setTimeout(() => {{ location.href = "{leak}away"; }}, 1500);
  }});
</script>"#
    )
}

const NOTES: &str = "# Trip notes\n\n- Train at **9:40**\n- Hotel: Grand\n\n| Day | Plan |\n|---|---|\n| 1 | Museum |\n";

fn wait(p: &mut Panel, page: &Page, condition: &str) {
    if let Err(err) = p.browser.cdp.wait_until(page, condition, DEADLINE) {
        let text = p.browser.cdp.evaluate(page, "document.body.innerText").unwrap_or_default();
        panic!("{err:#}\nwaiting for: {condition}\npage text: {text}");
    }
}

fn eval(p: &mut Panel, page: &Page, script: &str) -> Value {
    p.browser.cdp.evaluate(page, script).unwrap_or_else(|err| panic!("{err:#}\n{script}"))
}

/// What the model was told, across every request it got.
fn told(p: &Panel) -> String {
    p.server
        .requests()
        .into_iter()
        .filter_map(|r| r.json)
        .map(|body| body.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn wait_told(p: &Panel, needle: &str) -> String {
    let until = Instant::now() + DEADLINE;
    loop {
        let all = told(p);
        if all.contains(needle) {
            return all;
        }
        assert!(Instant::now() < until, "the model was never told {needle:?}:\n{all}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn wait_file(path: &Path) -> String {
    let until = Instant::now() + DEADLINE;
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            return text;
        }
        assert!(Instant::now() < until, "{} never landed", path.display());
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The path a download result names after `lead` (up to the size in parentheses).
fn landed(told: &str, lead: &str) -> String {
    let at = told.find(lead).unwrap_or_else(|| panic!("no {lead:?} in:\n{told}")) + lead.len();
    let rest = &told[at..];
    let end = rest.find(" (").unwrap_or_else(|| panic!("no size after {lead:?}: {rest}"));
    rest[..end].to_owned()
}

fn shoot(p: &mut Panel, page: &Page, width: u32, name: &str) {
    p.browser.set_viewport(page, width, 800).expect("set the width");
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = artifacts_dir().join(format!("artifacts-{name}-{}-{width}.png", scheme.name()));
        p.browser.screenshot(page, scheme, &path).expect("screenshot");
        eprintln!("screenshot: {}", path.display());
    }
    p.browser.clear_viewport(page).expect("clear the width");
}

#[test]
fn an_artifact_is_a_card_opens_in_a_sandboxed_viewer_and_downloads() {
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    p.set_policy("auto").expect("policy");
    p.sites.add_page("leak.test", "/fetch", "<p>leaked");
    let leak = p.sites.url("leak.test", "/");
    let probe = probe(&leak);
    let downloads: PathBuf =
        std::env::temp_dir().join(format!("panelot-dl-{}", std::process::id()));
    std::fs::create_dir_all(&downloads).expect("a downloads folder");
    p.browser
        .cdp
        .call(
            "Browser.setDownloadBehavior",
            json!({"behavior": "allow", "downloadPath": downloads.to_string_lossy()}),
        )
        .expect("set the downloads folder");

    p.model.reply(Reply::tool_call("load_tools", json!({"group": "files"})));
    p.model.reply(Reply::tool_call(
        "artifact_create",
        json!({"filename": "probe.html", "content": probe}),
    ));
    p.model.reply(Reply::tool_call(
        "artifact_create",
        json!({"filename": "trip-notes.md", "content": NOTES}),
    ));
    p.model.reply(Reply::text("Saved both."));
    p.send("Make me a probe page and trip notes").expect("send");
    let panel = p.panel.clone();
    wait(&mut p, &panel, "document.body.innerText.includes('Saved both.')");
    wait_told(&p, "Saved the artifact \\\"trip-notes.md\\\" (Markdown, ");

    // The cards, in the side panel.
    let card =
        |name: &str| format!("document.querySelector('.artifact-card[data-artifact=\"{name}\"]')");
    let meta = eval(
        &mut p,
        &panel,
        &format!("{}?.querySelector('.artifact-meta').innerText", card("probe.html")),
    );
    assert_eq!(meta, json!(format!("HTML page · {} B", probe.len())));
    let meta = eval(
        &mut p,
        &panel,
        &format!("{}?.querySelector('.artifact-meta').innerText", card("trip-notes.md")),
    );
    assert_eq!(meta, json!(format!("Markdown · {} B", NOTES.len())));
    shoot(&mut p, &panel, 360, "cards-sidepanel");

    // Open in the side panel opens the chat page beside it, on that artifact.
    eval(
        &mut p,
        &panel,
        &format!("{}.querySelector('.open-artifact').click(), true", card("trip-notes.md")),
    );
    let target = p
        .browser
        .cdp
        .wait_for_target("page", DEADLINE, |url| {
            url.contains("/chat.html?thread=") && url.contains("&artifact=trip-notes.md")
        })
        .expect("the chat page opens on the artifact");
    let chat = p.browser.cdp.attach(&target).expect("attach the chat page");
    wait(&mut p, &chat, "!!document.querySelector('.artifact-viewer .md h1')");
    let heading =
        eval(&mut p, &chat, "document.querySelector('.artifact-viewer .md h1').innerText");
    assert_eq!(heading, json!("Trip notes"));
    assert_eq!(
        eval(&mut p, &chat, "document.querySelectorAll('.artifact-viewer .md table td').length"),
        json!(2)
    );
    shoot(&mut p, &chat, 1280, "viewer-markdown");
    shoot(&mut p, &chat, 360, "viewer-markdown");

    // Close, then open the HTML page from its card in the chat page: its script runs in the
    // sandbox and reaches nothing.
    eval(
        &mut p,
        &chat,
        "window.__probes = []; addEventListener('message', (e) => window.__probes.push(e.data)); true",
    );
    eval(&mut p, &chat, "document.querySelector('.close-artifact').click(), true");
    wait(&mut p, &chat, "!document.querySelector('.artifact-viewer')");
    let mark = p.sites.mark();
    eval(
        &mut p,
        &chat,
        "document.querySelector('.artifact-card[data-artifact=\"probe.html\"] .open-artifact').click(), true",
    );
    wait(&mut p, &chat, "window.__probes.length > 0");
    let probe = eval(&mut p, &chat, "window.__probes[0].probe");
    assert_eq!(
        probe,
        json!({"runtime": false, "storage": false, "parent": "blocked", "fetch": "blocked"}),
        "the artifact's script reached something"
    );
    assert_eq!(
        eval(&mut p, &chat, "document.querySelector('.artifact-frame').contentDocument === null"),
        json!(true),
        "the chat page cannot reach into the frame either"
    );
    assert_eq!(
        eval(&mut p, &chat, "document.querySelector('.artifact-frame').getAttribute('sandbox')"),
        json!("allow-scripts")
    );
    shoot(&mut p, &chat, 1280, "viewer-html");
    // Nothing reached the fixture server: not the fetch, not the image, not the frame's
    // navigation away (the chat page's frame-src), given time to try.
    std::thread::sleep(Duration::from_millis(3000));
    let reached: Vec<String> = p
        .sites
        .requests_since(mark)
        .into_iter()
        .filter(|r| r.host == "leak.test")
        .map(|r| r.path)
        .collect();
    assert!(reached.is_empty(), "the artifact reached the network: {reached:?}");
    eval(&mut p, &chat, "document.querySelector('.close-artifact').click(), true");
    wait(&mut p, &chat, "!document.querySelector('.artifact-viewer')");
    shoot(&mut p, &chat, 1280, "cards-chat");

    // Download from the card: the file is made in the page.
    eval(
        &mut p,
        &chat,
        "document.querySelector('.artifact-card[data-artifact=\"trip-notes.md\"] .download-artifact').click(), true",
    );
    assert_eq!(wait_file(&downloads.join("trip-notes.md")), NOTES);

    // The download tool: the artifact (renamed) and a URL, through chrome.downloads. DevTools'
    // download handling (above) would name the files itself: the browser's own goes back, so
    // the names the tool gives are the names Chrome uses, in its downloads folder.
    p.browser
        .cdp
        .call("Browser.setDownloadBehavior", json!({"behavior": "default"}))
        .expect("the browser's own downloads");
    p.sites.add_page("files.test", "/report", "<!doctype html><title>Report</title><p>Q3 figures");
    let url = p.sites.url("files.test", "/report");
    p.model.reply(Reply::tool_call(
        "download",
        json!({"artifact": "trip-notes.md", "filename": "notes-copy.md"}),
    ));
    p.model.reply(Reply::tool_call("download", json!({"url": url, "filename": "q3-report.html"})));
    p.model.reply(Reply::text("Downloaded."));
    p.send("Download the notes and the report").expect("send");
    // The URL's site is asked for first (the browser sends the user's cookies there); the
    // artifact needed no site.
    let until = Instant::now() + DEADLINE;
    let card = loop {
        if let Some(card) = p.card().expect("read the card") {
            break card;
        }
        assert!(Instant::now() < until, "no card for the URL:\n{}", p.panel_text());
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(card.tool, "download");
    assert!(card.has_flag("host_permission"), "{card:?}");
    let origin = url.trim_end_matches("/report").to_owned();
    p.grant(&origin).expect("grant the site");
    p.click_decision(Decision::Allow).expect("allow");
    wait(&mut p, &panel, "document.body.innerText.includes('Downloaded.')");
    let all = wait_told(&p, "Downloaded the artifact \\\"trip-notes.md\\\" to ");
    let copy = landed(&all, "Downloaded the artifact \\\"trip-notes.md\\\" to ");
    assert!(copy.ends_with(".md") && copy.contains("notes-copy"), "{copy}");
    assert_eq!(wait_file(Path::new(&copy)), NOTES, "the artifact's own text");
    let report = landed(&all, &format!("Downloaded {url} to "));
    assert!(report.contains("q3-report"), "{report}");
    assert!(wait_file(Path::new(&report)).contains("Q3 figures"));
    for file in [copy, report] {
        let _ = std::fs::remove_file(file);
    }

    // sidebar_open of an artifact, with the side panel the only view of the thread: the chat
    // page opens beside it on the artifact, in its viewer.
    p.browser
        .cdp
        .call("Target.closeTarget", json!({"targetId": chat.target_id}))
        .expect("close the chat page");
    p.update_settings(&json!({"agentOpenTools": true})).expect("let the agent open things");
    p.model.reply(Reply::tool_call("sidebar_open", json!({"target": "artifact:probe.html"})));
    p.model.reply(Reply::text("Opened the probe."));
    p.send("Show me the probe page").expect("send");
    let target = p
        .browser
        .cdp
        .wait_for_target("page", DEADLINE, |url| url.ends_with("&artifact=probe.html"))
        .expect("the chat page opens on the artifact");
    let opened = p.browser.cdp.attach(&target).expect("attach");
    wait(&mut p, &opened, "!!document.querySelector('.artifact-viewer .artifact-frame')");
    let all = wait_told(&p, "\\\"kind\\\":\\\"artifact\\\"");
    assert!(all.contains("\\\"delivered\\\":true"), "the model was told it was shown");
    let _ = std::fs::remove_dir_all(&downloads);
}
