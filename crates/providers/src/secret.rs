//! Secrets at rest: API keys and sensitive header values sealed with AES-256-GCM under a key
//! the host keeps apart from the data.
//!
//! This guards against casual inspection and export of the settings (a backup file, a glance
//! at the stored record); it does not guard against someone who can read the browser profile,
//! where the host's key lives too.
//!
//! Stored form: `"v1:" + base64(nonce ‖ ciphertext ‖ tag)`, a 96-bit random nonce per seal.

use std::fmt;

use aes_gcm::Aes256Gcm;
use aes_gcm::KeyInit;
use aes_gcm::Nonce;
use aes_gcm::aead::Aead;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Prefix of the stored form, so the format can change without guessing.
const VERSION_PREFIX: &str = "v1:";
/// AES-GCM nonce length.
const NONCE_LEN: usize = 12;
/// AES-GCM tag length.
const TAG_LEN: usize = 16;

/// The 256-bit key that seals secrets. Its `Debug` never shows it.
///
/// Sealing guards against casual inspection and export of the settings, not against someone
/// who can read the browser profile: the host keeps this key there too, only apart from the data.
#[derive(Clone, PartialEq, Eq)]
pub struct VaultKey([u8; 32]);

/// A sealed secret, stored as a string (see the module docs). Its `Debug` shows only its length.
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct SealedSecret {
    /// Nonce, ciphertext and tag.
    bytes: Vec<u8>,
}

/// Why a secret could not be sealed or opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The stored text is not a sealed secret of a known version.
    #[error("the stored secret is malformed")]
    Malformed,
    /// Authentication failed: another key sealed it, or it was altered.
    #[error("the secret cannot be opened with this key (wrong key or altered data)")]
    WrongKeyOrTampered,
    /// The host has no randomness for a nonce.
    #[error("no randomness available for a nonce")]
    NoRandomness,
    /// The opened bytes are not UTF-8.
    #[error("the opened secret is not text")]
    NotText,
}

impl VaultKey {
    /// A key from 32 bytes the host generated and keeps apart from the settings.
    pub fn from_bytes(bytes: [u8; 32]) -> VaultKey {
        VaultKey(bytes)
    }

    /// A fresh random key.
    pub fn generate() -> Result<VaultKey, SecretError> {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes).map_err(|_| SecretError::NoRandomness)?;
        Ok(VaultKey(bytes))
    }

    /// The key's bytes, for the host to store.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0
    }

    fn cipher(&self) -> Aes256Gcm {
        Aes256Gcm::new(&self.0.into())
    }
}

impl SealedSecret {
    /// Seals `plaintext` under `key` with a fresh random nonce.
    pub fn seal(key: &VaultKey, plaintext: &str) -> Result<SealedSecret, SecretError> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::getrandom(&mut nonce).map_err(|_| SecretError::NoRandomness)?;
        let ciphertext = key
            .cipher()
            .encrypt(&Nonce::from(nonce), plaintext.as_bytes())
            // Encryption fails only for inputs beyond GCM's 64 GiB limit.
            .map_err(|_| SecretError::Malformed)?;
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&ciphertext);
        Ok(SealedSecret { bytes })
    }

    /// The plaintext, if `key` sealed it and nothing was altered.
    pub fn open(&self, key: &VaultKey) -> Result<String, SecretError> {
        let (nonce, ciphertext) =
            self.bytes.split_at_checked(NONCE_LEN).ok_or(SecretError::Malformed)?;
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| SecretError::Malformed)?;
        let plaintext = key
            .cipher()
            .decrypt(&Nonce::from(nonce), ciphertext)
            .map_err(|_| SecretError::WrongKeyOrTampered)?;
        String::from_utf8(plaintext).map_err(|_| SecretError::NotText)
    }

    /// Parses the stored form.
    pub fn parse(stored: &str) -> Result<SealedSecret, SecretError> {
        let encoded = stored.strip_prefix(VERSION_PREFIX).ok_or(SecretError::Malformed)?;
        let bytes = STANDARD.decode(encoded).map_err(|_| SecretError::Malformed)?;
        if bytes.len() < NONCE_LEN + TAG_LEN {
            return Err(SecretError::Malformed);
        }
        Ok(SealedSecret { bytes })
    }

    /// The stored form.
    pub fn to_stored(&self) -> String {
        format!("{VERSION_PREFIX}{}", STANDARD.encode(&self.bytes))
    }
}

impl From<SealedSecret> for String {
    fn from(secret: SealedSecret) -> String {
        secret.to_stored()
    }
}

impl TryFrom<String> for SealedSecret {
    type Error = SecretError;

    fn try_from(stored: String) -> Result<SealedSecret, SecretError> {
        SealedSecret::parse(&stored)
    }
}

impl fmt::Debug for VaultKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("VaultKey([redacted])")
    }
}

impl fmt::Debug for SealedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SealedSecret({} bytes)", self.bytes.len())
    }
}

#[cfg(test)]
#[path = "secret_tests.rs"]
mod tests;
