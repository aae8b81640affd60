//! `cargo xtask run`: build the extension and launch Chromium with it on a fresh profile.

use std::path::Path;

use panelot_testkit::chromium::Chromium;
use panelot_testkit::chromium::Display;
use panelot_testkit::chromium::LaunchOptions;
use panelot_testkit::extension_id;

use crate::step;

pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    let dist = crate::build::build_extension(root)?;
    let sh = xshell::Shell::new()?;
    let binary = crate::tools::ensure_chromium(&sh)?;
    let has_display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    let display = if has_display { Display::Window } else { Display::Headless };
    let id = extension_id(&dist)?;
    let chat_url = format!("chrome-extension://{id}/chat.html");
    let mut chromium = Chromium::launch(&LaunchOptions::new(binary, Some(dist), display))?;
    chromium.open(&chat_url)?;
    step(&format!("extension id {id}; chat page {chat_url}"));
    step(&format!("DevTools: {}", chromium.devtools_http_url()));
    if matches!(display, Display::Headless) {
        step("no display found: Chromium runs headless; attach with the DevTools address above");
    }
    step("press Ctrl+C to stop");
    chromium.wait()?;
    Ok(())
}
