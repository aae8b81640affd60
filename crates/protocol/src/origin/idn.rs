//! The ASCII skeleton of an internationalized host: punycode labels decoded (RFC 3492), then
//! the letters most often used to imitate Latin ones (Cyrillic and Greek homoglyphs) mapped to
//! the letters they imitate. `xn--pypal-4ve.com` (`pаypal.com`, Cyrillic `а`) becomes
//! `paypal.com`, so the denylist can see what the name pretends to be.
//!
//! Not the full Unicode confusables table: a host that still holds non-ASCII after mapping has
//! no skeleton, and the gatekeeper falls back to asking about it.

/// The host's ASCII look-alike, when decoding and mapping leave only ASCII and change
/// something; `None` for plain ASCII hosts and for hosts that do not reduce to ASCII.
pub(super) fn skeleton(host: &str) -> Option<String> {
    let mut out = String::with_capacity(host.len());
    for (idx, label) in host.split('.').enumerate() {
        if idx > 0 {
            out.push('.');
        }
        let decoded = match label.strip_prefix("xn--") {
            Some(encoded) => decode_punycode(encoded)?,
            None => label.to_owned(),
        };
        out.extend(decoded.chars().flat_map(char::to_lowercase).map(homoglyph));
    }
    (out.is_ascii() && out != host).then_some(out)
}

/// The Latin letter a Cyrillic or Greek letter passes for in a host name; other characters
/// unchanged.
fn homoglyph(c: char) -> char {
    match c {
        // Cyrillic.
        'а' => 'a',
        'в' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' => 'e',
        'һ' => 'h',
        'і' | 'ї' | 'ı' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'ӏ' | 'ℓ' => 'l',
        'м' => 'm',
        'п' => 'n',
        'о' => 'o',
        'р' => 'p',
        'ԛ' => 'q',
        'г' => 'r',
        'ѕ' => 's',
        'т' => 't',
        'ц' | 'џ' => 'u',
        'ѵ' => 'v',
        'ԝ' | 'ш' => 'w',
        'х' => 'x',
        'у' => 'y',
        // Greek.
        'α' => 'a',
        'β' => 'b',
        'ε' => 'e',
        'η' => 'n',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' | 'σ' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'γ' => 'y',
        // Latin look-alikes outside ASCII.
        'ɡ' => 'g',
        other => other,
    }
}

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;
/// DNS labels are at most 63 bytes; longer input is not a host label and is not decoded.
const MAX_LABEL: usize = 63;

/// Decodes the part of a punycode label after `xn--`; `None` when it is malformed.
fn decode_punycode(input: &str) -> Option<String> {
    if input.len() > MAX_LABEL || !input.is_ascii() {
        return None;
    }
    let (basic, extended) = match input.rfind('-') {
        Some(dash) => (&input[..dash], &input[dash + 1..]),
        None => ("", input),
    };
    let mut output: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (INITIAL_N, 0_u32, INITIAL_BIAS);
    let mut digits = extended.bytes().peekable();
    while digits.peek().is_some() {
        let old_i = i;
        let mut weight = 1_u32;
        let mut k = BASE;
        loop {
            let digit = digit_value(digits.next()?)?;
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let threshold = if k <= bias {
                T_MIN
            } else if k >= bias + T_MAX {
                T_MAX
            } else {
                k - bias
            };
            if digit < threshold {
                break;
            }
            weight = weight.checked_mul(BASE - threshold)?;
            k = k.checked_add(BASE)?;
        }
        let points = u32::try_from(output.len() + 1).ok()?;
        bias = adapt(i - old_i, points, old_i == 0);
        n = n.checked_add(i / points)?;
        i %= points;
        let at = usize::try_from(i).ok()?;
        output.insert(at, char::from_u32(n)?);
        i += 1;
    }
    Some(output.into_iter().collect())
}

fn digit_value(byte: u8) -> Option<u32> {
    match byte {
        b'a'..=b'z' => Some(u32::from(byte - b'a')),
        b'A'..=b'Z' => Some(u32::from(byte - b'A')),
        b'0'..=b'9' => Some(u32::from(byte - b'0') + 26),
        _ => None,
    }
}

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + ((BASE - T_MIN + 1) * delta) / (delta + SKEW)
}

#[cfg(test)]
#[path = "idn_tests.rs"]
mod tests;
