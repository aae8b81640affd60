//! The extension id Chromium derives from the manifest's `key`.

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
