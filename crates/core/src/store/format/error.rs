//! What names a stored record in an error, and why one could not be read: shared by the
//! codec, the migrations and the conversions of every version.

use std::fmt;

use panelot_protocol::IdError;

/// The kinds of stored records; migrations differ by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Run,
    Node,
    Thread,
    Receipt,
    Attachment,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Run => "run",
            Kind::Node => "node",
            Kind::Thread => "thread meta",
            Kind::Receipt => "receipt",
            Kind::Attachment => "attachment",
        })
    }
}

/// Why a stored record could not be read (or, never in practice, written).
#[derive(Debug, thiserror::Error)]
pub(crate) enum FormatError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("not a JSON object")]
    NotAnObject,
    #[error("format version `v` is not a number")]
    BadVersion,
    #[error("format version {found} is newer than this build's {known}")]
    Newer { found: u64, known: u64 },
    #[error("bad id in `{field}`: {source}")]
    Id { field: &'static str, source: IdError },
    #[error("`{field}` is {value}, too large")]
    TooLarge { field: &'static str, value: u64 },
}

/// A stored id, checked as the protocol checks it.
pub(crate) fn id<T>(
    field: &'static str,
    raw: String,
    make: impl FnOnce(String) -> Result<T, IdError>,
) -> Result<T, FormatError> {
    make(raw).map_err(|source| FormatError::Id { field, source })
}
