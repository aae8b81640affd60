//! Which page this is (side panel, chat, options) and the language it speaks.

use leptos::prelude::*;

use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;

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
    /// The language of the UI (the browser's, changed in the options page).
    pub(crate) lang: RwSignal<Lang>,
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

    /// `msg` with its `{placeholders}` filled, in the current language (not tracked).
    pub(crate) fn format(self, msg: Msg, args: &[(&str, &str)]) -> String {
        i18n::format(self.lang.get_untracked(), msg, args)
    }
}

/// Provides the [`Page`] context.
pub(crate) fn provide_page(kind: PageKind, lang: Lang) -> Page {
    let page = Page { kind, lang: RwSignal::new(lang) };
    provide_context(page);
    page
}

/// The [`Page`] context.
pub(crate) fn use_page() -> Page {
    expect_context()
}
