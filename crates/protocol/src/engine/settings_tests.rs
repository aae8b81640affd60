//! `ApiKeyEntry`'s written-out decoder against serde's untagged form.

use pretty_assertions::assert_eq;
use serde::Deserialize;

use super::*;

/// `ApiKeyEntry` as serde derives it: the reference of its written-out `Deserialize`.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum DerivedApiKeyEntry {
    Typed(String),
    Saved { saved: u32 },
}

#[test]
fn api_key_entries_read_as_serdes_untagged_form() {
    use serde_json::json;

    let cases = [
        json!("sk-1"),
        json!({"saved": 2}),
        json!({"saved": 2, "x": 1}),
        json!({"saved": "2"}),
        json!({"saved": -1}),
        json!({}),
        json!(3),
        json!(null),
        json!(["sk"]),
    ];
    for value in cases {
        let derived = serde_json::from_value::<DerivedApiKeyEntry>(value.clone())
            .map(|entry| match entry {
                DerivedApiKeyEntry::Typed(key) => ApiKeyEntry::Typed(key),
                DerivedApiKeyEntry::Saved { saved } => ApiKeyEntry::Saved { saved },
            })
            .map_err(|err| err.to_string().replace("DerivedApiKeyEntry", "ApiKeyEntry"));
        let ours = crate::from_value::<ApiKeyEntry>(value.clone()).map_err(|err| err.to_string());
        assert_eq!(ours, derived, "{value}");
    }
}
