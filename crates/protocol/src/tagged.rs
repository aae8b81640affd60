//! Internally tagged enums (`{"kind": "text", "text": "…"}`) whose deserializer reads through a
//! JSON value instead of serde's generic buffering.
//!
//! For `#[serde(tag = …)]` serde buffers the object into its private `Content` tree and then
//! deserializes the variant from that tree, which compiles a second deserializer of every type
//! inside the enum (for the UI's wasm, about 170 KB after wasm-opt for the engine protocol's
//! tagged enums). [`internally_tagged!`] declares the enum once: the enum itself serializes and
//! describes its schema exactly as `#[serde(tag = …)]` makes it, and its `Deserialize` reads a
//! [`Value`], takes the tag out and hands `{tag: rest}` to a private externally tagged copy of the
//! enum with the same renames and `deny_unknown_fields`, which deserializes through the value
//! deserializer every other protocol type already uses.
//!
//! What it accepts is what serde's tagged form accepts, with two refusals more: the sequence form
//! serde also takes for a tagged enum (`["text", "…"]`) and unknown fields next to the tag of a
//! unit variant (serde ignores them even with `deny_unknown_fields`). Nothing writes either.

use serde::Deserialize;
use serde::Deserializer;
use serde::de::DeserializeOwned;
use serde::de::Error;
use serde::de::Unexpected;
use serde_json::Map;
use serde_json::Value;

/// Declares an internally tagged enum (see the module docs). The `#[serde(tag = …, …)]`
/// attribute comes first; its other options (renames, `deny_unknown_fields`) apply to both the
/// enum and its deserializer. Variants are unit or struct variants; attributes on variants and
/// fields may only be doc comments and `serde` attributes. Exported for the engine's stored
/// records (the caller needs `serde` and `serde_json`).
#[macro_export]
macro_rules! internally_tagged {
    (
        #[serde(tag = $tag:literal $(, $option:meta)* $(,)?)]
        $(#[$attr:meta])*
        $vis:vis enum $Enum:ident {
            $(
                $(#[$variant_attr:meta])*
                $Variant:ident $({
                    $(
                        $(#[$field_attr:meta])*
                        $field:ident : $field_ty:ty
                    ),* $(,)?
                })?
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[serde(tag = $tag $(, $option)*)]
        $vis enum $Enum {
            $(
                $(#[$variant_attr])*
                $Variant $({
                    $(
                        $(#[$field_attr])*
                        $field: $field_ty,
                    )*
                })?,
            )*
        }

        const _: () = {
            /// The same enum, externally tagged, with unit variants as empty struct variants.
            #[derive(serde::Deserialize)]
            #[serde($($option),*)]
            enum Untagged {
                $(
                    $(#[$variant_attr])*
                    $Variant {
                        $($(
                            $(#[$field_attr])*
                            $field: $field_ty,
                        )*)?
                    },
                )*
            }

            impl<'de> serde::Deserialize<'de> for $Enum {
                fn deserialize<D: serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> Result<Self, D::Error> {
                    Ok(match $crate::__untag::<D, Untagged>(deserializer, $tag)? {
                        $(
                            Untagged::$Variant { $($($field),*)? } => {
                                $Enum::$Variant $({ $($field),* })?
                            }
                        )*
                    })
                }
            }
        };
    };
}

pub(crate) use crate::internally_tagged;

/// Reads an object, takes its string member `tag` out and deserializes `T`, an externally
/// tagged enum, from `{tag: the other members}`.
pub fn untag<'de, D, T>(deserializer: D, tag: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    let Value::Object(mut fields) = value else {
        return Err(D::Error::invalid_type(unexpected(&value), &"an object with a tag"));
    };
    let variant = match fields.remove(tag) {
        Some(Value::String(variant)) => variant,
        Some(other) => {
            return Err(D::Error::invalid_type(unexpected(&other), &"variant identifier"));
        }
        None => return Err(D::Error::missing_field(tag)),
    };
    let mut external = Map::new();
    external.insert(variant, Value::Object(fields));
    crate::traced::from_value::<T>(Value::Object(external)).map_err(D::Error::custom)
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(n), _, _) => Unexpected::Unsigned(n),
            (None, Some(n), _) => Unexpected::Signed(n),
            (None, None, n) => Unexpected::Float(n.unwrap_or_default()),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

#[cfg(test)]
#[path = "tagged_tests.rs"]
mod tests;
