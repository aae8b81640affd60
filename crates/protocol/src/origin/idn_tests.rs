//! Punycode decoding and homoglyph skeletons.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn decodes_punycode() {
    // Vectors computed with Python's `punycode` codec and RFC 3492 §7.1.
    for (encoded, decoded) in [
        ("bcher-kva", "bücher"),
        ("pypal-4ve", "pаypal"),
        ("hase-k6d", "сhase"),
        ("l-7sba6dbr", "раураl"),
        ("egbpdaj6bu4bxfgehfvwxn", "ليهمابتكلموشعربي؟"),
        ("ihqwcrb4cv8a8dqg056pqjye", "他们为什么不说中文"),
    ] {
        assert_eq!(decode_punycode(encoded).as_deref(), Some(decoded), "{encoded}");
    }
    for bad in ["ab-!", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "é", &"a".repeat(64)] {
        assert_eq!(decode_punycode(bad), None, "{bad}");
    }
}

#[test]
fn skeletons() {
    assert_eq!(skeleton("xn--pypal-4ve.com").as_deref(), Some("paypal.com"));
    assert_eq!(skeleton("www.xn--l-7sba6dbr.com").as_deref(), Some("www.paypal.com"));
    assert_eq!(skeleton("сhase.com").as_deref(), Some("chase.com"));
    assert_eq!(skeleton("xn--bcher-kva.example"), None, "ü has no ASCII look-alike here");
    assert_eq!(skeleton("paypal.com"), None, "already ASCII");
    assert_eq!(skeleton("xn--zz.com"), None, "malformed");
}
