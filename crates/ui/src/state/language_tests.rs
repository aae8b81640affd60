//! Tests of the language setting.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn the_setting_picks_the_pages_language() {
    assert_eq!(LANGUAGES.map(|l| lang_for(l, Lang::ZhCn)), [Lang::ZhCn, Lang::En, Lang::ZhCn]);
    assert_eq!(lang_for(Language::System, Lang::En), Lang::En);
}

#[test]
fn values_round_trip_and_match_the_wire() {
    for language in LANGUAGES {
        assert_eq!(parse_language_value(language_value(language)), Some(language));
        let wire = serde_json::to_value(language).unwrap();
        assert_eq!(wire, serde_json::json!(language_value(language)));
    }
    assert_eq!(parse_language_value("fr"), None);
}

#[test]
fn labels_name_each_language_in_itself() {
    assert_eq!(
        LANGUAGES.map(|l| language_label(l, Lang::En, Lang::ZhCn)),
        ["Same as the browser (简体中文)".to_owned(), "English".to_owned(), "简体中文".to_owned()]
    );
    assert_eq!(language_label(Language::System, Lang::ZhCn, Lang::En), "跟随浏览器（English）");
}
