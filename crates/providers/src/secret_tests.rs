//! Tests of sealed secrets.

use pretty_assertions::assert_eq;

use super::SealedSecret;
use super::SecretError;
use super::VaultKey;

fn key(byte: u8) -> VaultKey {
    VaultKey::from_bytes([byte; 32])
}

#[test]
fn a_sealed_secret_opens_with_its_key_after_a_round_trip_through_storage() {
    let sealed = SealedSecret::seal(&key(1), "sk-live-1234567890").unwrap();
    let stored = serde_json::to_string(&sealed).unwrap();
    assert!(stored.starts_with("\"v1:"), "{stored}");
    assert!(!stored.contains("sk-live"), "{stored}");
    let back: SealedSecret = serde_json::from_str(&stored).unwrap();
    assert_eq!(back.open(&key(1)).unwrap(), "sk-live-1234567890");
}

#[test]
fn a_wrong_key_fails_with_a_typed_error() {
    let sealed = SealedSecret::seal(&key(1), "secret").unwrap();
    assert_eq!(sealed.open(&key(2)), Err(SecretError::WrongKeyOrTampered));
}

#[test]
fn altered_data_fails_like_a_wrong_key() {
    let sealed = SealedSecret::seal(&key(1), "secret").unwrap();
    let mut bytes = sealed.bytes;
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    assert_eq!(SealedSecret { bytes }.open(&key(1)), Err(SecretError::WrongKeyOrTampered));
}

#[test]
fn the_same_plaintext_seals_differently_each_time() {
    let a = SealedSecret::seal(&key(1), "secret").unwrap();
    let b = SealedSecret::seal(&key(1), "secret").unwrap();
    assert_ne!(a, b);
}

#[test]
fn malformed_stored_forms_are_rejected() {
    for stored in ["", "v1:", "v1:AAAA", "v2:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "v1:!!"]
    {
        assert_eq!(SealedSecret::parse(stored), Err(SecretError::Malformed), "{stored}");
    }
    assert!(serde_json::from_str::<SealedSecret>("\"plain-key\"").is_err());
}

#[test]
fn debug_output_shows_no_key_material() {
    let sealed = SealedSecret::seal(&key(7), "sk-visible").unwrap();
    assert_eq!(format!("{:?}", key(7)), "VaultKey([redacted])");
    assert!(!format!("{sealed:?}").contains("sk-visible"));
}
