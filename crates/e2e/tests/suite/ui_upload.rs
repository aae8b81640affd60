//! Files attached in the side panel's composer and put on a page's file input by `upload_file`
//! (#19), in real Chromium through the product's entry points.
//!
//! The attach menu offers "Attach file…"; the user picks files in the composer's own file
//! input (CDP `DOM.setFileInputFiles`, what a pick in the browser's file dialog does): a file
//! over 5 MB is refused by the box in words, with the text and the other file kept; the file that fits is a chip (name and size) and goes
//! with the message, whose bubble shows it, also after the panel reloads. The scripted model
//! loads the files tools, reads a form on `upload.files.test` (a made-up origin, through
//! `--host-resolver-rules`) and calls `upload_file` on its file input with the attachment id
//! the engine told it; the approval card names the file; after Allow the page's input holds
//! the file with its name, size and content (the page reads it with `FileReader`). In a new
//! chat, a call naming the first chat's attachment is refused before any card, and the page's
//! input is not touched. Screenshots of the composer with chips and the refusal (360 px panel,
//! 1280 px chat page) and of the sent bubble, in light and dark.
//!
//! A message the engine refuses (a full queue) gives the composer back its text and its file;
//! sent again, the file is named, not stored twice; regenerate and edit-and-resend keep the
//! file, so the model is told of it on the new branch.

use std::path::Path;
use std::path::PathBuf;

use panelot_e2e::scripted_model::Transcript;
use panelot_e2e::side_panel::Card;
use panelot_e2e::side_panel::Decision;
use panelot_e2e::side_panel::Panel;
use panelot_e2e::side_panel::PanelOptions;
use panelot_e2e::side_panel::sel;
use panelot_e2e::ui::Scheme;
use panelot_e2e::ui::artifacts_dir;
use panelot_testkit::cdp::Page;
use panelot_testkit::mock_provider::Reply;
use serde_json::Value;
use serde_json::json;

const HOST: &str = "upload.files.test";

/// A form whose file input shows what it holds: name, size, type and text, read by the page.
const FORM: &str = r#"<!doctype html><title>Send a report</title>
<h1>Send your report</h1>
<label>Report <input type=file id=doc accept=".txt,text/plain"></label>
<output id=out>no file</output>
<script>
  const doc = document.getElementById('doc');
  doc.addEventListener('change', () => {
    const file = doc.files[0];
    const reader = new FileReader();
    reader.onload = () => {
      document.getElementById('out').textContent =
        `${file.name}|${file.size}|${file.type}|${reader.result}`;
    };
    reader.readAsText(file);
  });
</script>"#;

const NOTES: &str = "Quarterly numbers: 42\nAll good.\n";

/// Sets `paths` on the file input `selector` of `page`, as a pick in the file dialog does.
fn set_files(p: &mut Panel, page: &Page, selector: &str, paths: &[&Path]) {
    let cdp = &mut p.browser.cdp;
    let document = cdp.call_in(&page.session_id, "DOM.getDocument", json!({})).expect("document");
    let root = document["root"]["nodeId"].clone();
    let found = cdp
        .call_in(
            &page.session_id,
            "DOM.querySelector",
            json!({"nodeId": root, "selector": selector}),
        )
        .expect("find the file input");
    let files: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    cdp.call_in(
        &page.session_id,
        "DOM.setFileInputFiles",
        json!({"files": files, "nodeId": found["nodeId"]}),
    )
    .expect("set the files");
}

fn js(p: &mut Panel, page: &Page, script: &str) -> Value {
    p.browser.run_js(page, script)
}

fn text_of(p: &mut Panel, page: &Page, selector: &str) -> String {
    let script = format!("document.querySelector({selector:?})?.innerText ?? ''");
    js(p, page, &script).as_str().unwrap_or_default().to_owned()
}

/// Screenshots of `page` at `width` × 800 in light and dark, the stream scrolled to its end.
fn screenshots(p: &mut Panel, page: &Page, name: &str, width: u32) {
    p.browser.set_viewport(page, width, 800).expect("set the size");
    js(
        p,
        page,
        "(() => { const s = document.querySelector('.stream'); if (s) s.scrollTop = s.scrollHeight; return true; })()",
    );
    for scheme in [Scheme::Light, Scheme::Dark] {
        let path = artifacts_dir().join(format!("upload-{name}-{}-{width}.png", scheme.name()));
        p.browser.screenshot(page, scheme, &path).expect("screenshot");
        eprintln!("screenshot: {}", path.display());
    }
    p.browser.clear_viewport(page).expect("clear the metrics");
}

/// The attachment id the engine told the model for `name` ("… attached NAME (…) as attachment
/// ID; …" in the user's message).
fn attachment_id(t: &Transcript, name: &str) -> Option<String> {
    let marker = format!("attached {name} (");
    t.texts_of("user").iter().find_map(|text| {
        let rest = &text[text.find(&marker)?..];
        let rest = &rest[rest.find("as attachment ")? + "as attachment ".len()..];
        Some(rest.split(';').next()?.trim().to_owned())
    })
}

/// A temporary directory of the test `test` with the user's files: notes.txt and a file just
/// over 5 MB (each test its own: tests run at once, and each deletes its directory).
fn user_files(test: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("panelot-upload-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, NOTES).expect("write notes.txt");
    let big = dir.join("big.bin");
    std::fs::write(&big, vec![7u8; 5_000_001]).expect("write big.bin");
    (dir, notes, big)
}

#[test]
fn ui_upload_a_file_attached_in_the_composer_is_put_on_a_pages_file_input() {
    let (dir, notes, big) = user_files("put");
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    let panel = p.panel.clone();
    p.sites.add_page(HOST, "/send", FORM);
    let (url, origin) = (p.sites.url(HOST, "/send"), p.sites.origin(HOST));
    p.grant(&origin).expect("grant the site");
    let tab = p.open_tab(&url, true).expect("open the form");

    // The attach menu offers files.
    js(&mut p, &panel, "document.querySelector('.attach-menu').click(), true");
    p.browser.wait_ui(&panel, "document.querySelector('.attach-file')?.checkVisibility()");
    assert_eq!(text_of(&mut p, &panel, ".attach-file"), "Attach file…");
    screenshots(&mut p, &panel, "menu-sidepanel", 360);
    js(&mut p, &panel, "document.querySelector('.attach-menu').click(), true");

    // A text typed first, then two files picked at once: the large one is refused in words by
    // the box; the other is a chip; the text stays.
    p.browser.type_into(&panel, sel::COMPOSER, "Upload my notes to the form").expect("type");
    set_files(&mut p, &panel, ".composer .attach-file-input", &[&notes, &big]);
    p.browser.wait_ui(&panel, "!!document.querySelector('.attached .chip.file')");
    p.browser.wait_ui(&panel, "!!document.querySelector('.file-refusals')");
    let refusal = text_of(&mut p, &panel, ".file-refusals");
    assert!(refusal.contains("big.bin is larger than 5 MB and was not attached."), "{refusal}");
    let chips = text_of(&mut p, &panel, ".attached");
    let size = format!("{} B", NOTES.len());
    assert!(chips.contains("notes.txt") && chips.contains(&size), "{chips}");
    assert!(!chips.contains("big.bin"), "{chips}");
    let typed = js(&mut p, &panel, "document.querySelector('.composer textarea').value");
    assert_eq!(typed, json!("Upload my notes to the form"), "nothing typed is lost");
    screenshots(&mut p, &panel, "composer-sidepanel", 360);
    js(&mut p, &panel, "document.querySelector('.file-refusals button').click(), true");
    p.browser.wait_ui(&panel, "!document.querySelector('.file-refusals')");

    // The turn: load the files tools, read the form, upload the attachment by its id.
    let tab_id = tab.id;
    p.model.reply(Reply::tool_call("load_tools", json!({"group": "files"})));
    p.model.reply(Reply::tool_call("read_page", json!({"tabId": tab_id})));
    p.model.push(move |t: &Transcript| {
        let Some(id) = attachment_id(t, "notes.txt") else {
            return Reply::text(format!("[no attachment in {:?}]", t.texts_of("user")));
        };
        t.act_on("button", "Report", |r| {
            Reply::tool_call("upload_file", json!({"tabId": tab_id, "ref": r, "attachment": id}))
        })
    });
    p.model.reply(Reply::text("Uploaded your notes."));
    let mut cards: Vec<Card> = Vec::new();
    // The text is already in the box: sending is Enter.
    p.browser.type_into(&panel, sel::COMPOSER, "").expect("focus the composer");
    let mut answer = |p: &mut Panel, card: &Card| -> anyhow::Result<Decision> {
        if card.tool == "upload_file" && cards.is_empty() {
            let page = p.panel.clone();
            screenshots(p, &page, "approval-sidepanel", 360);
        }
        cards.push(card.clone());
        Ok(Decision::Allow)
    };
    p.run_turn("", &mut answer).expect("the upload turn");
    let upload: Vec<&Card> = cards.iter().filter(|c| c.tool == "upload_file").collect();
    assert_eq!(upload.len(), 1, "{cards:#?}\n{}", p.panel_text());
    let site = origin.trim_start_matches("http://");
    assert!(
        upload[0].header.starts_with(&format!("Upload “notes.txt” to button “Report” on {site}")),
        "the card names the file: {:#?}",
        upload[0]
    );
    // The page holds the file: its name, size, type and content, read by the page.
    p.wait_tab(&tab, "document.getElementById('out').textContent !== 'no file'").expect("read");
    let shown = p.eval_tab(&tab, "document.getElementById('out').textContent").expect("out");
    assert_eq!(shown, json!(format!("notes.txt|{}|text/plain|{NOTES}", NOTES.len())));
    let said = p.model.served();
    assert!(said >= 4, "four model calls: {said}");

    // The bubble shows the file, and again after the panel reloads.
    p.browser.wait_ui(&panel, "!!document.querySelector('.msg.user .msg-files .chip.file')");
    assert!(text_of(&mut p, &panel, ".msg.user .msg-files").contains("notes.txt"));
    p.browser.wait_ui(&panel, "!document.querySelector('.composer .attached')");
    let thread = p.current_thread().expect("threads").expect("a thread");
    let thread_id = thread["meta"]["id"].as_str().expect("an id").to_owned();
    js(&mut p, &panel, &format!("location.href = 'sidepanel.html?thread={thread_id}'; true"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.browser.wait_ui(&panel, sel::READY);
    p.browser.wait_ui(&panel, "!!document.querySelector('.msg.user .msg-files .chip.file')");
    let files = text_of(&mut p, &panel, ".msg.user .msg-files");
    assert!(files.contains("notes.txt") && files.contains(&size), "{files}");
    screenshots(&mut p, &panel, "sent-sidepanel", 360);

    // A new chat may not use the first chat's file: refused before any card, the page's input
    // untouched.
    p.eval_tab(&tab, "document.getElementById('out').textContent = 'untouched'; true")
        .expect("reset");
    p.new_chat().expect("a new chat");
    let first_id = {
        let driver = p.driver.clone();
        let inputs = p.browser.stored_user_inputs(&driver).expect("stored messages");
        let with_file = inputs.iter().find(|i| !i.attachment_ids.is_empty()).expect("the message");
        with_file.attachment_ids[0].to_string()
    };
    p.model.reply(Reply::tool_call("read_page", json!({"tabId": tab_id})));
    p.model.push(move |t: &Transcript| {
        t.act_on("button", "Report", |r| {
            Reply::tool_call(
                "upload_file",
                json!({"tabId": tab_id, "ref": r, "attachment": first_id}),
            )
        })
    });
    p.model.push(|t: &Transcript| Reply::text(t.last_result().unwrap_or_default()));
    let mut no_card = |_: &mut Panel, card: &Card| -> anyhow::Result<Decision> {
        anyhow::bail!("no card for another chat's file: {card:#?}")
    };
    p.run_turn("Upload the notes from my other chat", &mut no_card).expect("the refused turn");
    let said = js(
        &mut p,
        &panel,
        "[...document.querySelectorAll('.msg.assistant')].pop()?.innerText ?? ''",
    );
    let said = said.as_str().unwrap_or_default();
    assert!(said.contains("is not a file the user attached in this chat"), "{said}");
    let shown = p.eval_tab(&tab, "document.getElementById('out').textContent").expect("out");
    assert_eq!(shown, json!("untouched"));

    // The chat page at 1280 px: the composer with a chip.
    let chat = p.browser.open_extension_page("chat.html").expect("open the chat page");
    p.browser.wait_ui(&chat, sel::READY);
    set_files(&mut p, &chat, ".composer .attach-file-input", &[&notes, &big]);
    p.browser.wait_ui(&chat, "!!document.querySelector('.attached .chip.file')");
    p.browser.wait_ui(&chat, "!!document.querySelector('.file-refusals')");
    screenshots(&mut p, &chat, "composer-chat", 1280);
    let _ = std::fs::remove_dir_all(dir);
}

/// What the model reads of the newest user message: whether it is told of notes.txt.
fn told_of_notes(t: &Transcript) -> bool {
    t.texts_of("user").last().is_some_and(|text| text.contains("attached notes.txt ("))
}

/// The newest answer in the panel.
fn last_answer(p: &mut Panel, page: &Page) -> String {
    let script = "[...document.querySelectorAll('.msg.assistant .md')].pop()?.innerText ?? ''";
    js(p, page, script).as_str().unwrap_or_default().trim().to_owned()
}

/// #19: a message the engine refuses (here: the queue is full) gives the composer back its
/// text and its file chip; sent again in the same chat the file is named, not stored twice
/// (no refusal); regenerating the answer and editing the message keep the file, so the model is
/// told of it on the new branch too. Screenshots: the refused message back in the composer,
/// and the edit box with its file (360 px, light and dark).
#[test]
fn ui_upload_a_refused_message_gives_back_its_file_and_a_regenerate_or_edit_keeps_it() {
    let (dir, notes, _big) = user_files("refused");
    let mut p = Panel::launch(PanelOptions::default()).expect("launch the side panel");
    let panel = p.panel.clone();

    // A turn that holds the thread, and a queue filled to its 8.
    let held = panelot_testkit::mock_provider::Gate::new();
    p.model.reply(Reply::text("First answer.").held(&held));
    p.send("Start").expect("send");
    let thread = loop {
        if let Some(thread) = p.current_thread().expect("threads")
            && thread["running"] == true
        {
            break thread["meta"]["id"].as_str().expect("an id").to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let steps: Vec<Value> = (1..=8)
        .map(|n| {
            json!({"send": {"type": "turn.enqueue", "threadId": thread,
                "input": {"text": format!("Queued {n}")}}, "until": "command.ack"})
        })
        .collect();
    p.ops(&json!(steps)).expect("fill the queue");
    p.browser.wait_ui(&panel, "document.querySelector('.queue-dock')?.innerText.includes('8')");

    // A ninth, with a file, queued from the composer (Shift+Alt+Enter): refused, and given back.
    set_files(&mut p, &panel, ".composer .attach-file-input", &[&notes]);
    p.browser.wait_ui(&panel, "!!document.querySelector('.attached .chip.file')");
    p.browser.type_into(&panel, sel::COMPOSER, "Here are my notes").expect("type");
    let (alt, shift) = (panelot_e2e::ui::Modifier::Alt, panelot_e2e::ui::Modifier::Shift);
    p.browser.press(&panel, "Enter", &[shift, alt]).expect("queue it");
    p.browser.wait_ui(&panel, "document.body.innerText.includes('Not sent:')");
    p.browser.wait_ui(&panel, "!!document.querySelector('.attached .chip.file')");
    let typed = js(&mut p, &panel, "document.querySelector('.composer textarea').value");
    assert_eq!(typed, json!("Here are my notes"), "the text comes back");
    let chips = text_of(&mut p, &panel, ".attached");
    assert!(chips.contains("notes.txt"), "the file comes back: {chips}");
    screenshots(&mut p, &panel, "refused-sidepanel", 360);

    // The held turn and the queued ones end; the message goes again, with its file.
    for n in 1..=8 {
        p.model.reply(Reply::text(format!("Answer {n}.")));
    }
    p.model.push(|t: &Transcript| {
        Reply::text(if told_of_notes(t) { "Sent: I see notes.txt." } else { "Sent: no file." })
    });
    held.release();
    let until = std::time::Instant::now() + panelot_e2e::side_panel::TURN_DEADLINE;
    while p.model.served() < 9
        || p.current_thread().expect("threads").expect("a thread")["running"] == true
    {
        assert!(std::time::Instant::now() < until, "the queue did not run:\n{}", p.panel_text());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    p.browser.wait_ui(&panel, "!document.querySelector('.queue-dock')");
    p.browser.type_into(&panel, sel::COMPOSER, "").expect("focus the composer");
    p.browser.press(&panel, "Enter", &[]).expect("send it again");
    let answered = |said: &str| {
        format!(
            "[...document.querySelectorAll('.msg.assistant .md')].pop()?.innerText.includes({})",
            json!(said)
        )
    };
    p.browser.wait_ui(&panel, &answered("Sent:"));
    assert_eq!(last_answer(&mut p, &panel), "Sent: I see notes.txt.");
    let refusals = js(&mut p, &panel, "document.querySelector('.file-refusals')?.innerText ?? ''");
    assert_eq!(refusals, json!(""), "the file was named, not stored again under its id");
    p.browser.wait_ui(&panel, "!document.querySelector('.composer .attached')");

    // Regenerate: the message goes again with its file.
    p.model.push(|t: &Transcript| {
        let said = if told_of_notes(t) { "Again: I see notes.txt." } else { "Again: no file." };
        Reply::text(said)
    });
    js(
        &mut p,
        &panel,
        "[...document.querySelectorAll('.msg.assistant .regenerate')].pop().click(), true",
    );
    p.browser.wait_ui(&panel, &answered("Again:"));
    assert_eq!(last_answer(&mut p, &panel), "Again: I see notes.txt.");

    // Edit and resend: the edit box shows the file (it can be taken off there) and the edited
    // message keeps it.
    p.browser.wait_ui(
        &panel,
        "[...document.querySelectorAll('.msg.user .edit')].pop()?.disabled === false",
    );
    js(&mut p, &panel, "[...document.querySelectorAll('.msg.user .edit')].pop().click(), true");
    p.browser
        .wait_ui(&panel, "!!document.querySelector('.msg.user .msg-files.editing .chip.file')");
    let kept = text_of(&mut p, &panel, ".msg-files.editing");
    assert!(kept.contains("notes.txt"), "{kept}");
    // The box opens with the whole message selected: typing replaces it.
    js(&mut p, &panel, "document.querySelector('.edit-box').select(), true");
    p.browser.type_into(&panel, ".edit-box", "Here are my notes, please").expect("edit");
    screenshots(&mut p, &panel, "edit-sidepanel", 360);
    p.model.push(|t: &Transcript| {
        let said = if told_of_notes(t) { "Edited: I see notes.txt." } else { "Edited: no file." };
        Reply::text(said)
    });
    js(&mut p, &panel, "document.querySelector('.send-edit').click(), true");
    p.browser.wait_ui(&panel, &answered("Edited:"));
    assert_eq!(last_answer(&mut p, &panel), "Edited: I see notes.txt.");
    let users =
        js(&mut p, &panel, "[...document.querySelectorAll('.msg.user')].pop()?.innerText ?? ''");
    let users = users.as_str().unwrap_or_default();
    assert!(users.contains("Here are my notes, please") && users.contains("notes.txt"), "{users}");
    let _ = std::fs::remove_dir_all(dir);
}
