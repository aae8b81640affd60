//! The language setting: one choice stored by the engine (`SettingsView.language`) and shared
//! by every page, the browser's language or one of the catalog's; what the options page's
//! selector offers.

use panelot_protocol::engine::Language;

use crate::i18n;
use crate::i18n::Lang;
use crate::i18n::Msg;

/// The choices in the order the selector lists them.
pub const LANGUAGES: [Language; 3] =
    [Language::System, Language::English, Language::SimplifiedChinese];

/// The language a page speaks for the setting `language`, when the browser's is `system`.
pub fn lang_for(language: Language, system: Lang) -> Lang {
    match language {
        Language::System => system,
        Language::English => Lang::En,
        Language::SimplifiedChinese => Lang::ZhCn,
    }
}

/// The `<option>` value of a choice (its wire spelling).
pub fn language_value(language: Language) -> &'static str {
    match language {
        Language::System => "system",
        Language::English => "en",
        Language::SimplifiedChinese => "zh-CN",
    }
}

/// The choice of an `<option>` value.
pub fn parse_language_value(value: &str) -> Option<Language> {
    LANGUAGES.into_iter().find(|l| language_value(*l) == value)
}

/// A language's own name: each is written in itself, so a person who cannot read the page
/// still finds theirs.
pub fn own_name(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "English",
        Lang::ZhCn => "简体中文",
    }
}

/// The selector's label of `language`, shown on a page speaking `lang` in a browser speaking
/// `system`.
pub fn language_label(language: Language, lang: Lang, system: Lang) -> String {
    match language {
        Language::System => {
            i18n::format(lang, Msg::LanguageSystem, &[("language", own_name(system))])
        }
        Language::English => own_name(Lang::En).to_owned(),
        Language::SimplifiedChinese => own_name(Lang::ZhCn).to_owned(),
    }
}

#[cfg(test)]
#[path = "language_tests.rs"]
mod tests;
