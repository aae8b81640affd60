//! Copying: the copy button of a message, and the copy buttons of its code blocks (which
//! `markdown` writes into the message's HTML, so one click handler on the message runs them).
//! A button shows that it copied (`data-copied`) for a moment once the clipboard took the text.

use leptos::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::events::closest_target;
use super::icon::icon;
use crate::host;
use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::icons::Icon;

/// How long a button says "Copied".
const COPIED_MS: u64 = 1500;

/// Puts `text` on the clipboard; `Ok` once it is there.
async fn write_clipboard(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let promise = window.navigator().clipboard().write_text(text);
    JsFuture::from(promise).await.map(|_| ()).map_err(|err| format!("{err:?}"))
}

/// The copy button of a message: copies `text` (the message's Markdown as written). Once copied
/// it shows a check for a moment (`data-copied`, which the stylesheet follows).
#[component]
pub(crate) fn CopyButton(
    /// What the button copies.
    text: String,
    /// The button's name, in the page's language.
    label: &'static str,
) -> impl IntoView {
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let text = text.clone();
        leptos::task::spawn_local(async move {
            match write_clipboard(&text).await {
                Ok(()) => {
                    copied.set(true);
                    set_timeout(
                        move || copied.set(false),
                        std::time::Duration::from_millis(COPIED_MS),
                    );
                }
                Err(err) => host::log_error(&format!("cannot copy: {err}")),
            }
        });
    };
    view! {
        <button type="button" class="copy" data-copied=move || copied.get().to_string()
            aria-label=label title=label on:click=copy>
            {icon(Icon::Copy)}{icon(Icon::Check)}
        </button>
    }
}

/// The click handler of a message's Markdown in `lang`: a click on a code block's `.copy-code`
/// copies that block's code.
pub(crate) fn on_code_copy_click(lang: Lang, event: web_sys::MouseEvent) {
    let button = closest_target(&event, ".copy-code");
    let Some(button) = button else { return };
    let code = button
        .closest(".code-block")
        .ok()
        .flatten()
        .and_then(|block| block.query_selector("pre code").ok().flatten())
        .and_then(|code| code.text_content())
        .unwrap_or_default();
    leptos::task::spawn_local(async move {
        match write_clipboard(&code).await {
            Ok(()) => {
                let label = button.query_selector(".copy-label").ok().flatten();
                let _ = button.set_attribute("data-copied", "true");
                if let Some(label) = &label {
                    label.set_text_content(Some(i18n::text(lang, Msg::Copied)));
                }
                set_timeout(
                    move || {
                        let _ = button.set_attribute("data-copied", "false");
                        if let Some(label) = &label {
                            label.set_text_content(Some(i18n::text(lang, Msg::CopyCode)));
                        }
                    },
                    std::time::Duration::from_millis(COPIED_MS),
                );
            }
            Err(err) => host::log_error(&format!("cannot copy: {err}")),
        }
    });
}
