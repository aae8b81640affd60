//! Secret-shaped values: what an API key, an access token or a private key looks like, so that a
//! secret read on one site and typed into another is recognised by its value, not only by the
//! name of the field it goes into.
//!
//! Two kinds of evidence. Known shapes (a provider's key prefix, a JWT, a PEM private-key block)
//! are specific enough to flag anywhere in a call's parameters, including a URL a navigation
//! would carry them in. A long high-entropy token is flagged only in text typed into a page
//! ([`is_high_entropy_token`]), since document ids and hashes in URLs look alike.

/// Prefixes of well-known keys and tokens, with the least number of key characters after them.
const KNOWN_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 20),
    ("sk_live_", 16),
    ("rk_live_", 16),
    ("pk_live_", 16),
    ("ghp_", 30),
    ("gho_", 30),
    ("ghu_", 30),
    ("ghs_", 30),
    ("ghr_", 30),
    ("github_pat_", 30),
    ("glpat-", 20),
    ("xoxb-", 10),
    ("xoxp-", 10),
    ("xoxa-", 10),
    ("xoxr-", 10),
    ("xoxs-", 10),
    ("AKIA", 16),
    ("ASIA", 16),
    ("AIza", 30),
    ("npm_", 30),
    ("hf_", 30),
    ("SG.", 40),
];

/// Shortest token [`is_high_entropy_token`] considers.
const MIN_ENTROPY_TOKEN: usize = 32;

/// Bits per character above which a long token counts as random.
const MIN_BITS_PER_CHAR: f64 = 4.0;

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '/' | '=')
}

/// Whether `text` holds a value shaped like a known secret: a provider key prefix followed by
/// enough key characters, a JWT, or a private-key block.
pub fn is_secret_shaped(text: &str) -> bool {
    if text.contains("-----BEGIN") && text.contains("PRIVATE KEY") {
        return true;
    }
    let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')));
    words.filter(|word| !word.is_empty()).any(|word| has_known_prefix(word) || is_jwt(word))
}

/// Whether `text` holds a token of at least 32 characters mixing upper- and lowercase letters
/// and digits with the entropy of random data: how generated keys look, and what prose, words,
/// hex hashes and UUIDs do not.
pub fn is_high_entropy_token(text: &str) -> bool {
    tokens(text).any(|token| {
        let token = token.trim_end_matches('=');
        token.len() >= MIN_ENTROPY_TOKEN
            && token.bytes().any(|b| b.is_ascii_uppercase())
            && token.bytes().any(|b| b.is_ascii_lowercase())
            && token.bytes().any(|b| b.is_ascii_digit())
            && bits_per_char(token) >= MIN_BITS_PER_CHAR
    })
}

fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_key_char(c)).filter(|token| !token.is_empty())
}

fn has_known_prefix(token: &str) -> bool {
    KNOWN_PREFIXES.iter().any(|(prefix, least)| {
        token.strip_prefix(prefix).is_some_and(|rest| {
            let body = rest.trim_end_matches('.');
            body.len() >= *least
                && body.bytes().any(|b| b.is_ascii_digit())
                && body
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        })
    })
}

/// Three base64url segments, the first two JSON objects (`eyJ` is `{"` encoded).
fn is_jwt(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts[1].starts_with("eyJ")
        && parts[0].len() >= 10
        && parts[1].len() >= 10
        && parts[2].len() >= 16
        && parts.iter().all(|part| {
            part.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'='))
        })
}

fn bits_per_char(token: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in token.bytes() {
        counts[usize::from(b)] += 1;
    }
    let len = token.len() as f64;
    counts
        .iter()
        .filter(|count| **count > 0)
        .map(|count| {
            let p = f64::from(*count) / len;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_shapes_are_secrets() {
        for secret in [
            "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1w",
            "my key is sk-ant-api03-AbC123dEf456gHi789jKl",
            "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
            "AKIAIOSFODNN7EXAMPLE",
            "xoxb-123456789012-abcdefABCDEF",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END",
            "https://api.test/?key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6",
        ] {
            assert!(is_secret_shaped(secret), "{secret}");
        }
    }

    #[test]
    fn ordinary_text_is_not_a_secret() {
        for text in [
            "sk-the-rest-of-the-sentence",
            "Ada Lovelace",
            "task-list-item",
            "https://docs.test/page",
            "ghp_short",
            "eyJ.eyJ.x",
            "AKIA",
        ] {
            assert!(!is_secret_shaped(text), "{text}");
        }
    }

    #[test]
    fn long_random_tokens_have_high_entropy_but_hashes_uuids_and_prose_do_not() {
        assert!(is_high_entropy_token("token: 9fQ2xLm7Rt4ZpW8kVn3BcYh6JdSa1EgUq5"));
        for text in [
            "da39a3ee5e6b4b0d3255bfef95601890afd80709",
            "123e4567-e89b-12d3-a456-426614174000",
            "The quick brown fox jumps over the lazy dog again and again",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaA1",
        ] {
            assert!(!is_high_entropy_token(text), "{text}");
        }
    }
}
