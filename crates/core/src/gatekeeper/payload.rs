//! Sensitive payload detection over a call's parameters: card numbers, credential-looking keys
//! and fields labelled as credentials, secret-shaped values, and email addresses.

use serde_json::Value;

/// Credential key forms, matched against whole words of a parameter name or field label
/// after splitting camelCase, snake_case, kebab-case and spaces and lowercasing (so
/// `userPassword`, `X-API-KEY` and "Card number" all match), and against each pair of adjacent
/// words joined (`api` + `key`). Whole words keep `max_tokens`, `tokenizer` and `author` out.
pub const CREDENTIAL_KEYS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "pass",
    "passcode",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "privatekey",
    "secretkey",
    "otp",
    "totp",
    "cvv",
    "cvc",
    "csc",
    "pin",
    "pincode",
    "ssn",
    "cardnumber",
    "cardnum",
    "ccnumber",
    "ccnum",
    "creditcard",
    "securitycode",
];

/// Forms that are unambiguous even glued into a longer lowercase word (`newpassword`,
/// `xapikey`), where no word boundary is visible.
const GLUED_CREDENTIAL_KEYS: &[&str] =
    &["password", "passwd", "passphrase", "apikey", "privatekey", "secretkey", "accesstoken"];

/// Last words of parameter names that describe the field being filled (`element`, `label`,
/// `fieldLabel`, `placeholder`, `name`): when one names a credential, the text typed next to it
/// is a credential whatever its own key is called.
const LABEL_WORDS: &[&str] = &["element", "label", "placeholder", "name", "field", "hint"];

/// Last words of parameter names that carry the typed value next to such a label.
const VALUE_WORDS: &[&str] = &["text", "value", "values"];

/// What the parameters hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PayloadFindings {
    /// JSON paths of values holding a Luhn-valid card number.
    pub cards: Vec<String>,
    /// JSON paths of non-empty values under a credential-looking key.
    pub credentials: Vec<String>,
    /// JSON paths of values shaped like a known secret (an API key, a token, a private key).
    pub secrets: Vec<String>,
    /// JSON paths of values holding an email address.
    pub emails: Vec<String>,
}

/// Walks the parameters and reports every sensitive item by JSON path (`/a/0/b`).
pub fn scan(params: &Value) -> PayloadFindings {
    let mut findings = PayloadFindings::default();
    walk(params, "", &mut findings);
    findings
}

fn walk(value: &Value, path: &str, findings: &mut PayloadFindings) {
    match value {
        Value::Null | Value::Bool(_) => {}
        Value::Number(number) => {
            if contains_card(&number.to_string()) {
                findings.cards.push(path.to_owned());
            }
        }
        Value::String(text) => {
            if contains_card(text) {
                findings.cards.push(path.to_owned());
            }
            if contains_email(text) {
                findings.emails.push(path.to_owned());
            }
            if super::secrets::is_secret_shaped(text) {
                findings.secrets.push(path.to_owned());
            }
        }
        Value::Array(items) => {
            for (idx, item) in items.iter().enumerate() {
                walk(item, &format!("{path}/{idx}"), findings);
            }
        }
        Value::Object(map) => {
            let labelled = map.iter().any(|(key, item)| names_credential_field(key, item));
            for (key, item) in map {
                let item_path = format!("{path}/{key}");
                let typed_into_credential = labelled && last_word_in(key, VALUE_WORDS);
                if (is_credential_key(key) || typed_into_credential) && !is_blank(item) {
                    findings.credentials.push(item_path.clone());
                }
                walk(item, &item_path, findings);
            }
        }
    }
}

/// Whether a parameter name or a field label names a credential (`userPassword`, `API_KEY`,
/// "Password", "PIN"): one of [`CREDENTIAL_KEYS`] as a whole word or as two adjacent words
/// joined, or an unambiguous form glued inside a word.
pub fn is_credential_key(key: &str) -> bool {
    let words = words(key);
    let single = words.iter().any(|word| CREDENTIAL_KEYS.contains(&word.as_str()));
    let paired = words.windows(2).any(|pair| {
        let joined = format!("{}{}", pair[0], pair[1]);
        CREDENTIAL_KEYS.contains(&joined.as_str())
    });
    let glued = words.iter().any(|word| GLUED_CREDENTIAL_KEYS.iter().any(|it| word.contains(it)));
    single || paired || glued
}

/// Whether `key` is a label-like parameter whose string value names a credential field.
fn names_credential_field(key: &str, value: &Value) -> bool {
    last_word_in(key, LABEL_WORDS) && value.as_str().is_some_and(is_credential_key)
}

fn last_word_in(key: &str, set: &[&str]) -> bool {
    words(key).last().is_some_and(|word| set.contains(&word.as_str()))
}

/// Splits an identifier or a label into lowercase words: at every character that is not a
/// letter or digit, at lower→upper (`userPassword`), at the last capital of an acronym before
/// a lowercase letter (`APIKey`), and between letters and digits (`cvv2`).
fn words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (idx, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        if let Some(&prev) = idx.checked_sub(1).and_then(|it| chars.get(it)) {
            let next_lower = chars.get(idx + 1).is_some_and(|it| it.is_lowercase());
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower)
                || (prev.is_alphanumeric() && prev.is_numeric() != c.is_numeric());
            if boundary && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn is_blank(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Whether `text` holds a Luhn-valid card number of 13–19 digits, written as one run of
/// digits or as groups separated by single spaces or dashes.
///
/// Groups are tried at group boundaries only: scanning every window of a long digit string
/// would flag one in ten arbitrary ids.
pub fn contains_card(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut idx = 0;
    while idx < bytes.len() {
        if !bytes[idx].is_ascii_digit() {
            idx += 1;
            continue;
        }
        // Collect one run: digit groups joined by single separators.
        let mut groups: Vec<&str> = Vec::new();
        loop {
            let start = idx;
            while idx < bytes.len() && bytes[idx].is_ascii_digit() {
                idx += 1;
            }
            groups.push(&text[start..idx]);
            let joined = idx + 1 < bytes.len()
                && matches!(bytes[idx], b' ' | b'-')
                && bytes[idx + 1].is_ascii_digit();
            if !joined {
                break;
            }
            idx += 1;
        }
        if (0..groups.len()).any(|first| card_from(&groups[first..])) {
            return true;
        }
    }
    false
}

fn card_from(groups: &[&str]) -> bool {
    let mut digits = String::new();
    for group in groups {
        digits.push_str(group);
        if (13..=19).contains(&digits.len()) && is_luhn_valid(&digits) {
            return true;
        }
        if digits.len() > 19 {
            return false;
        }
    }
    false
}

/// The Luhn checksum over ASCII digits; all-zero strings are not card numbers.
pub fn is_luhn_valid(digits: &str) -> bool {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if digits.bytes().all(|b| b == b'0') {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(idx, b)| {
            let digit = u32::from(b - b'0');
            if idx % 2 == 1 {
                let doubled = digit * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                digit
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Whether `text` holds something shaped like `local@domain.tld`.
pub fn contains_email(text: &str) -> bool {
    let is_local = |c: char| c.is_ascii_alphanumeric() || "._%+-".contains(c);
    let is_domain = |c: char| c.is_ascii_alphanumeric() || ".-".contains(c);
    text.match_indices('@').any(|(at, _)| {
        let local_ok = text[..at].chars().next_back().is_some_and(is_local);
        let domain: String = text[at + 1..].chars().take_while(|c| is_domain(*c)).collect();
        let domain = domain.trim_end_matches('.');
        let tld_ok = domain.rsplit_once('.').is_some_and(|(head, tld)| {
            !head.is_empty() && tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic())
        });
        local_ok && tld_ok
    })
}

#[cfg(test)]
#[path = "payload_tests.rs"]
mod tests;
