//! Driving the UI pages the way a person does: typing into elements and pressing keys through
//! CDP `Input` (real keyboard events, so the pages' own key handling runs), reading the DOM,
//! the real side panel of a window, what the engine stored of the messages sent, and
//! screenshots in light and dark.

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use panelot_protocol::AgentEvent;
use panelot_protocol::decode_event;
use panelot_protocol::engine::ItemContent;
use panelot_protocol::engine::UserInput;
use panelot_testkit::cdp::Page;
use serde_json::Value;
use serde_json::json;

use crate::Browser;
use crate::conversation;

/// How long a UI condition may take to become true.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A modifier held with a key (CDP `Input.dispatchKeyEvent` bit values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// Alt / Option.
    Alt = 1,
    /// Control.
    Ctrl = 2,
    /// Meta / Command.
    Meta = 4,
    /// Shift.
    Shift = 8,
}

/// The light or dark colour scheme, for screenshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// `prefers-color-scheme: light`.
    Light,
    /// `prefers-color-scheme: dark`.
    Dark,
}

impl Scheme {
    /// The media feature value.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Light => "light",
            Scheme::Dark => "dark",
        }
    }
}

impl Browser {
    /// Waits until the JavaScript `condition` holds on `page`; panics with the Chromium log and
    /// the page's text otherwise.
    pub fn wait_ui(&mut self, page: &Page, condition: &str) {
        if let Err(err) = self.cdp.wait_until(page, condition, DEADLINE) {
            let text = self
                .cdp
                .evaluate(page, "document.body.innerText")
                .map(|v| v.as_str().unwrap_or_default().to_owned())
                .unwrap_or_default();
            panic!(
                "{err:#}\nwaiting for: {condition}\npage text:\n{text}\nChromium log:\n{}",
                self.log_tail()
            );
        }
    }

    /// Opens the extension page `page` (`chat.html`, …) and waits until its engine port is
    /// ready; panics otherwise.
    pub fn open_ready(&mut self, page: &str) -> Page {
        let opened =
            self.open_extension_page(page).unwrap_or_else(|err| panic!("open {page}: {err:#}"));
        self.wait_ui(&opened, crate::side_panel::sel::READY);
        opened
    }

    /// Evaluates `script` on `page`; panics on a script error.
    pub fn run_js(&mut self, page: &Page, script: &str) -> serde_json::Value {
        self.cdp.evaluate(page, script).unwrap_or_else(|err| panic!("{err:#}\nscript: {script}"))
    }

    /// Focuses the element `selector` and types `text` into it (CDP `Input.insertText`, which
    /// fires the `input` events typing fires).
    pub fn type_into(&mut self, page: &Page, selector: &str, text: &str) -> anyhow::Result<()> {
        let found = self.cdp.evaluate(
            page,
            &format!("(() => {{ const el = document.querySelector({selector:?}); el?.focus(); return !!el; }})()"),
        )?;
        anyhow::ensure!(found == json!(true), "no element {selector}");
        self.cdp.call_in(&page.session_id, "Input.insertText", json!({"text": text}))?;
        Ok(())
    }

    /// Presses `key` (a `KeyboardEvent.key` value: `Enter`, `Escape`, `y`, …) with `modifiers`
    /// on the focused element of `page`.
    pub fn press(&mut self, page: &Page, key: &str, modifiers: &[Modifier]) -> anyhow::Result<()> {
        let (code, key_code) = match key {
            "Enter" => ("Enter".to_owned(), 13),
            "Escape" => ("Escape".to_owned(), 27),
            letter if letter.len() == 1 => {
                let upper = letter.to_ascii_uppercase();
                (format!("Key{upper}"), u32::from(upper.as_bytes()[0]))
            }
            other => anyhow::bail!("no key code for {other}"),
        };
        let bits: u32 = modifiers.iter().map(|m| *m as u32).sum();
        for kind in ["keyDown", "keyUp"] {
            let mut event = json!({"type": kind, "key": key, "code": code,
                "windowsVirtualKeyCode": key_code, "modifiers": bits});
            if kind == "keyDown" && key.len() == 1 && bits & !(Modifier::Shift as u32) == 0 {
                event["text"] = json!(key);
            }
            self.cdp
                .call_in(&page.session_id, "Input.dispatchKeyEvent", event)
                .with_context(|| format!("pressing {key}"))?;
        }
        Ok(())
    }

    /// Opens the side panel of the window `window_id` (`chrome.sidePanel.open`, called from the
    /// extension page `from` with a user gesture) and attaches to the panel's page, as a person
    /// clicking the toolbar icon would get it: beside the window's tabs, not in a tab.
    pub fn open_side_panel(&mut self, from: &Page, window_id: u64) -> anyhow::Result<Page> {
        let opened = self.cdp.evaluate(
            from,
            &format!("chrome.sidePanel.open({{ windowId: {window_id} }}).then(() => true)"),
        )?;
        anyhow::ensure!(opened == json!(true), "chrome.sidePanel.open answered {opened}");
        let panel_url = format!("{}/sidepanel.html", self.extension_origin);
        let deadline = std::time::Instant::now() + DEADLINE;
        let target_id = loop {
            let targets = self.cdp.call("Target.getTargets", json!({}))?;
            let infos = targets["targetInfos"].as_array().cloned().unwrap_or_default();
            let panel = infos.iter().find(|t| {
                t["url"].as_str().is_some_and(|u| u.starts_with(&panel_url))
                    && t["attached"] != json!(true)
            });
            if let Some(id) = panel.and_then(|t| t["targetId"].as_str()) {
                break id.to_owned();
            }
            anyhow::ensure!(
                std::time::Instant::now() < deadline,
                "no side panel target among {infos:#?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let attached = self
            .cdp
            .call("Target.attachToTarget", json!({ "targetId": target_id, "flatten": true }))?;
        let session_id =
            attached["sessionId"].as_str().context("attachToTarget: no sessionId")?.to_owned();
        Ok(Page { target_id, session_id })
    }

    /// The messages sent in every thread, as the engine stored them (the inputs of the user
    /// messages on each thread's selected branch), read through a conversation from `page`.
    pub fn stored_user_inputs(&mut self, page: &Page) -> anyhow::Result<Vec<UserInput>> {
        let list = json!([{"send": {"type": "thread.list", "submissionId": "e2e-list",
            "includeArchived": false}, "until": "thread.listed"}]);
        let listed = self.run_conversation(page, &list)?;
        let threads: Vec<String> = listed
            .iter()
            .find_map(|event| match event {
                AgentEvent::ThreadListed(listed) => {
                    Some(listed.threads.iter().map(|t| t.meta.id.to_string()).collect())
                }
                _ => None,
            })
            .context("no thread.listed")?;
        let mut inputs = Vec::new();
        for thread_id in threads {
            let subscribe = json!([{"send": {"type": "thread.subscribe",
                "submissionId": format!("e2e-sub-{thread_id}"), "threadId": thread_id},
                "until": "thread.snapshot"}]);
            for event in self.run_conversation(page, &subscribe)? {
                if let AgentEvent::ThreadSnapshot(snapshot) = event {
                    inputs.extend(snapshot.snapshot.items.into_iter().filter_map(|item| {
                        match item.content {
                            ItemContent::UserMessage { input, .. } => Some(input),
                            _ => None,
                        }
                    }));
                }
            }
        }
        Ok(inputs)
    }

    /// Runs a conversation of `steps` from `page` and returns the engine events it got (the
    /// session's own messages, `initialized` and the like, are not events and are left out).
    fn run_conversation(&mut self, page: &Page, steps: &Value) -> anyhow::Result<Vec<AgentEvent>> {
        let result = self.cdp.evaluate(page, &conversation::script("e2e-ui-inputs", steps))?;
        anyhow::ensure!(result["how"] == "complete", "the conversation ended: {result}");
        let events = result["events"].as_array().cloned().unwrap_or_default();
        Ok(events
            .into_iter()
            .filter_map(|e| decode_event(e["event"].clone()).ok().map(|frame| frame.event))
            .collect())
    }

    /// Lays `page` out at `width` × `height` CSS pixels, as a window of that size would (media
    /// queries follow); [`Browser::clear_viewport`] undoes it.
    pub fn set_viewport(&mut self, page: &Page, width: u32, height: u32) -> anyhow::Result<()> {
        self.cdp.call_in(
            &page.session_id,
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        )?;
        Ok(())
    }

    /// Gives `page` back the window's size.
    pub fn clear_viewport(&mut self, page: &Page) -> anyhow::Result<()> {
        self.cdp.call_in(&page.session_id, "Emulation.clearDeviceMetricsOverride", json!({}))?;
        Ok(())
    }

    /// Saves a PNG screenshot of `page` in `scheme` to `path`. The page is brought to the
    /// front first: a background tab paints no frames.
    pub fn screenshot(&mut self, page: &Page, scheme: Scheme, path: &Path) -> anyhow::Result<()> {
        self.cdp.call_in(&page.session_id, "Page.bringToFront", json!({}))?;
        self.cdp.call_in(
            &page.session_id,
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": scheme.name()}]}),
        )?;
        // Colours change with a short transition: wait it out, then two frames, so the new
        // scheme is painted before the capture.
        self.cdp.evaluate(
            page,
            "new Promise((r) => setTimeout(() =>
                requestAnimationFrame(() => requestAnimationFrame(() => r(true))), 250))",
        )?;
        let shot = self.cdp.call_in(
            &page.session_id,
            "Page.captureScreenshot",
            json!({"format": "png"}),
        )?;
        let data = shot["data"].as_str().context("captureScreenshot: no data")?;
        let bytes = base64_decode(data).context("captureScreenshot: bad base64")?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

/// Where test artifacts (screenshots) go: `$PANELOT_ARTIFACTS_DIR`, else `e2e-artifacts` under
/// the cargo target directory.
pub fn artifacts_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PANELOT_ARTIFACTS_DIR") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("e2e-artifacts")
}

/// Standard base64 (with padding) to bytes; `None` on a character outside the alphabet.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace() && *b != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * i);
        }
        let n_bytes = chunk.len().saturating_sub(1);
        out.extend_from_slice(&n.to_be_bytes()[1..1 + n_bytes]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(super::base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(super::base64_decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(super::base64_decode("a$"), None);
    }
}
