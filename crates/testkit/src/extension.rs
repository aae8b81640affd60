//! The extension id Chromium derives from the manifest's `key`, and profile state for host
//! access granted earlier.

use std::path::Path;

use anyhow::Context;
use base64::Engine;
use sha2::Digest;

/// The id of the extension in `dir`, from the `key` of its `manifest.json`.
pub fn extension_id(dir: &Path) -> anyhow::Result<String> {
    let manifest_path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?;
    let manifest: serde_json::Value = serde_json::from_str(&text)?;
    let key = manifest["key"].as_str().context("manifest.json has no `key`")?;
    extension_id_from_key(key)
}

/// Chromium's rule: SHA-256 of the DER public key; the first 32 hex digits, each mapped
/// `0..f` → `a..p`.
pub fn extension_id_from_key(key_base64: &str) -> anyhow::Result<String> {
    let der = base64::engine::general_purpose::STANDARD.decode(key_base64.trim())?;
    let digest = sha2::Sha256::digest(&der);
    Ok(digest
        .iter()
        .take(16)
        .flat_map(|byte| [byte >> 4, byte & 0xf])
        .map(|nibble| char::from(b'a' + nibble))
        .collect())
}

/// `Default/Preferences` of a profile in which the user granted the extension `id` access to
/// the host patterns `origins` (`http://*.test/*`) at some earlier time, and the extension gave
/// it up again (`chrome.permissions.remove`), for [`crate::chromium::LaunchOptions::preferences`].
///
/// Chrome keeps such grants as "runtime granted" and does not show its permission dialog again
/// when the extension later asks (`chrome.permissions.request`, which still needs a user gesture)
/// for origins inside them: the promise resolves `true` and the origin becomes active. Nothing is
/// active at start (`chrome.permissions.contains` is false), so the extension's own path (a
/// call fails for lack of access, the approval card asks Chrome inside the click) runs for real;
/// only the dialog itself, which headless Chromium cannot show, is skipped. A request outside
/// `origins` still waits for a dialog nobody answers.
pub fn granted_before(id: &str, origins: &[&str]) -> serde_json::Value {
    let granted = serde_json::json!({
        "api": [], "explicit_host": origins, "manifest_permissions": [], "scriptable_host": []
    });
    serde_json::json!({"extensions": {"settings": {id: {
        "runtime_granted_permissions": granted,
        "granted_permissions": granted,
    }}}})
}
