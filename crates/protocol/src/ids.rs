//! Validated identifiers: opaque strings checked once at the boundary.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use ts_rs::TS;

/// Longest identifier accepted on any boundary.
pub const MAX_ID_LEN: usize = 128;

/// Why a string is not a valid identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// The identifier is empty.
    #[error("identifier is empty")]
    Empty,
    /// The identifier is longer than [`MAX_ID_LEN`] bytes.
    #[error("identifier is {0} bytes long, more than {MAX_ID_LEN}")]
    TooLong(usize),
    /// The identifier contains a character outside `[A-Za-z0-9_.:-]`.
    #[error("identifier contains {0:?}; only letters, digits and `_.:-` are allowed")]
    BadChar(char),
}

fn check_id(raw: &str) -> Result<(), IdError> {
    if raw.is_empty() {
        return Err(IdError::Empty);
    }
    if raw.len() > MAX_ID_LEN {
        return Err(IdError::TooLong(raw.len()));
    }
    match raw.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))) {
        Some(c) => Err(IdError::BadChar(c)),
        None => Ok(()),
    }
}

macro_rules! id_types {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Serialize, JsonSchema, TS, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Checks `raw` and wraps it.
            pub fn new(raw: impl Into<String>) -> Result<Self, IdError> {
                let raw = raw.into();
                check_id(&raw)?;
                Ok(Self(raw))
            }

            /// The identifier as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(deserializer)?;
                Self::new(raw).map_err(serde::de::Error::custom)
            }
        }
    )*};
}

id_types! {
    /// Client-chosen id of one command (a UUID in practice); echoed by the events it causes.
    SubmissionId;
    /// Persistent id of one UI client (kept in `chrome.storage`), part of a command receipt key.
    ClientId;
    /// Id of a thread (a conversation tree).
    ThreadId;
    /// Id of a node of a thread tree.
    NodeId;
    /// Id of a turn.
    TurnId;
    /// Id of a streamed item.
    ItemId;
    /// Id of a durable run (one admitted user turn and its execution).
    RunId;
    /// Id of an approval request.
    ApprovalId;
    /// Id of an interaction request.
    InteractionId;
    /// Id of a model connection.
    ConnectionId;
    /// Id of a model at a connection.
    ModelId;
    /// Id of a model preset.
    PresetId;
    /// Id of a thread folder.
    FolderId;
    /// Id of a stored attachment.
    AttachmentId;
    /// Id of one request to the page executor.
    RequestId;
    /// Element reference printed in a page snapshot (for example `e12`).
    ElementRef;
    /// Id of one page snapshot.
    SnapshotId;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_uuid_and_rejects_bad_ids() {
        assert!(ThreadId::new("0b9f8c0e-4f57-4a2e-9d3b-1f2a3b4c5d6e").is_ok());
        assert_eq!(ThreadId::new(""), Err(IdError::Empty));
        assert_eq!(ThreadId::new("a b"), Err(IdError::BadChar(' ')));
        assert_eq!(ThreadId::new("x".repeat(129)), Err(IdError::TooLong(129)));
        let err = serde_json::from_str::<ThreadId>("\"a/b\"").unwrap_err();
        assert!(err.to_string().contains("'/'"), "{err}");
    }
}
