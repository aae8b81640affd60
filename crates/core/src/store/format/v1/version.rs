//! The version mark every version-1 record starts with.

use serde::Deserialize;
use serde::Deserializer;
use serde::Serialize;
use serde::Serializer;

/// The `"v"` of a version-1 record: written as `1`, and any other value refuses to read, so a
/// record of another version never passes for this one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct V1;

impl Serialize for V1 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(1)
    }
}

impl<'de> Deserialize<'de> for V1 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match u64::deserialize(deserializer)? {
            1 => Ok(V1),
            other => Err(serde::de::Error::custom(format!("format version {other}, not 1"))),
        }
    }
}
