//! Tests of the message catalog.

use std::collections::BTreeSet;

use pretty_assertions::assert_eq;

use super::*;

fn placeholders(text: &str) -> BTreeSet<String> {
    text.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
        .map(|(n, _)| n.to_owned())
        .collect()
}

/// Both languages cover the same keys (the exhaustive matches make that a compile error
/// otherwise), every text is non-empty, and both texts of a key use the same placeholders.
#[test]
fn english_and_chinese_have_the_same_keys() {
    let en: BTreeSet<Msg> =
        Msg::ALL.iter().copied().filter(|m| !text(Lang::En, *m).is_empty()).collect();
    let zh: BTreeSet<Msg> =
        Msg::ALL.iter().copied().filter(|m| !text(Lang::ZhCn, *m).is_empty()).collect();
    assert_eq!(en, zh);
    assert_eq!(en.len(), Msg::ALL.len(), "a text is empty");
    for msg in Msg::ALL {
        assert_eq!(
            placeholders(text(Lang::En, *msg)),
            placeholders(text(Lang::ZhCn, *msg)),
            "placeholders of {msg:?}"
        );
    }
}

#[test]
fn format_fills_placeholders() {
    assert_eq!(format(Lang::En, Msg::Queued, &[("n", "3")]), "Queued (3)");
    assert_eq!(format(Lang::ZhCn, Msg::Queued, &[("n", "3")]), "排队中（3）");
}

#[test]
fn language_from_tag() {
    assert_eq!(
        ["zh-CN", "zh", "zh-Hans-CN", "en-US", "zh-TW", "fr"].map(Lang::from_tag),
        [Lang::ZhCn, Lang::ZhCn, Lang::ZhCn, Lang::En, Lang::En, Lang::En]
    );
}
