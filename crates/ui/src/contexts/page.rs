//! Which page this is (side panel, chat, options) and the language it speaks.
//!
//! The language is one setting of the engine, shared by every page: each page follows the
//! settings the engine broadcasts, so a change made in the options page reaches an open side
//! panel at once. Until the settings arrive a page speaks the language it spoke last time
//! (remembered in `localStorage`), else the browser's, so a page does not open in one language
//! and switch to another a moment later.

use leptos::prelude::*;
use panelot_protocol::engine::Language;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;

use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;
use crate::state::language::lang_for;
use crate::state::language::language_value;
use crate::state::language::parse_language_value;

/// Where a page remembers the language setting for its next start.
const REMEMBERED: &str = "panelot.language";

/// Which page this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageKind {
    /// The side panel (`sidepanel.html`).
    SidePanel,
    /// The full-page chat (`chat.html?thread=…`).
    Chat,
    /// The options page (`options.html`).
    Options,
}

impl PageKind {
    /// The page of a `start` entry name; an unknown name is the side panel.
    pub(crate) fn from_name(name: &str) -> PageKind {
        match name {
            "chat" => PageKind::Chat,
            "options" => PageKind::Options,
            _ => PageKind::SidePanel,
        }
    }

    /// The entry name, as `data-entry` shows it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            PageKind::SidePanel => "sidepanel",
            PageKind::Chat => "chat",
            PageKind::Options => "options",
        }
    }
}

/// The page and its language.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Page {
    /// Which page this is.
    pub(crate) kind: PageKind,
    /// The language of the UI: the setting's, the browser's when the setting says so.
    pub(crate) lang: RwSignal<Lang>,
    /// The browser's language.
    pub(crate) system: Lang,
}

impl Page {
    /// The text of `msg` in the current language, not tracked: for text that is built once.
    pub(crate) fn t(self, msg: Msg) -> &'static str {
        i18n::text(self.lang.get_untracked(), msg)
    }

    /// The text of `msg` in the current language, tracked: inside a reactive closure it
    /// follows a change of language.
    pub(crate) fn text(self, msg: Msg) -> &'static str {
        i18n::text(self.lang.get(), msg)
    }

    /// `msg` as a view that follows a change of language. Every message gets the same closure
    /// type, so a view holding many texts compiles one copy of the code that renders them (each
    /// distinct closure in a Leptos view is compiled anew, which weighs on the wasm).
    pub(crate) fn tr(self, msg: Msg) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
        move || self.text(msg)
    }

    /// `msg` with its `{placeholders}` filled, in the current language (not tracked).
    pub(crate) fn format(self, msg: Msg, args: &[(&str, &str)]) -> String {
        i18n::format(self.lang.get_untracked(), msg, args)
    }

    /// Speaks the language the setting `language` names from now on, and remembers it for the
    /// next start.
    pub(crate) fn follow_language(self, language: Language) {
        remember(language);
        let lang = lang_for(language, self.system);
        if self.lang.get_untracked() != lang {
            self.lang.set(lang);
            set_document_lang(lang);
        }
    }
}

/// Provides the [`Page`] context; `system` is the browser's language.
pub(crate) fn provide_page(kind: PageKind, system: Lang) -> Page {
    let lang = remembered().map_or(system, |language| lang_for(language, system));
    if lang != system {
        set_document_lang(lang);
    }
    let page = Page { kind, lang: RwSignal::new(lang), system };
    provide_context(page);
    page
}

/// The `<html lang>` of the document, for screen readers, fonts and hyphenation.
fn set_document_lang(lang: Lang) {
    if let Some(root) =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.tag());
    }
}

/// `window.localStorage`, reached through `Reflect` (an unavailable storage, as in some
/// privacy modes, is no storage).
fn local_storage() -> Option<JsValue> {
    let window = web_sys::window()?;
    js_sys::Reflect::get(&window, &JsValue::from_str("localStorage")).ok().filter(|s| s.is_object())
}

/// Calls `storage.<method>(args…)`.
fn storage_call(method: &str, args: &[&str]) -> Option<JsValue> {
    let storage = local_storage()?;
    let function: js_sys::Function =
        js_sys::Reflect::get(&storage, &JsValue::from_str(method)).ok()?.dyn_into().ok()?;
    let args: js_sys::Array = args.iter().map(|a| JsValue::from_str(a)).collect();
    function.apply(&storage, &args).ok()
}

fn remembered() -> Option<Language> {
    storage_call("getItem", &[REMEMBERED])?.as_string().and_then(|v| parse_language_value(&v))
}

fn remember(language: Language) {
    storage_call("setItem", &[REMEMBERED, language_value(language)]);
}

/// The [`Page`] context.
pub(crate) fn use_page() -> Page {
    expect_context()
}
