//! The table macro that turns one list of `"wire.name" => Variant(Params)` into a tagged enum,
//! its closed catalog of kinds, and a strict per-variant decoder.
//!
//! One list is the only source of truth: the enum, the kind catalog (`ALL`, wire names) and the
//! decoder cannot disagree, and every `match` on them elsewhere is exhaustive, so a new variant
//! fails to compile until each place that must handle it does.

macro_rules! wire_catalog {
    (
        $(#[$enum_doc:meta])*
        enum $Enum:ident;
        $(#[$kind_doc:meta])*
        kind $Kind:ident;
        common $Common:ident;
        $(
            $(#[$doc:meta])*
            $wire:literal => $Variant:ident($Params:ty),
        )*
    ) => {
        $(#[$enum_doc])*
        #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema, Debug, Clone, PartialEq)]
        #[serde(tag = "type")]
        pub enum $Enum {
            $(
                $(#[$doc])*
                #[serde(rename = $wire)]
                $Variant($Params),
            )*
        }

        $(#[$kind_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $Kind {
            $(
                $(#[$doc])*
                $Variant,
            )*
        }

        impl $Kind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [$Kind] = &[$($Kind::$Variant,)*];

            /// The `type` string on the wire.
            pub const fn wire_name(self) -> &'static str {
                match self {
                    $($Kind::$Variant => $wire,)*
                }
            }

            /// The kind with this `type` string, if it is known.
            pub fn from_wire_name(name: &str) -> Option<Self> {
                match name {
                    $($wire => Some($Kind::$Variant),)*
                    _ => None,
                }
            }
        }

        impl $Enum {
            /// The kind of this value.
            pub fn kind(&self) -> $Kind {
                match self {
                    $($Enum::$Variant(_) => $Kind::$Variant,)*
                }
            }

            /// The fields every variant has, through the catalog's common trait.
            pub fn common(&self) -> &dyn $Common {
                match self {
                    $($Enum::$Variant(params) => params,)*
                }
            }

            /// Decodes the fields of a value of kind `kind` (the object without its `type`),
            /// reporting the path of the first bad field.
            #[allow(dead_code, reason = "events are only decoded untraced")]
            pub(crate) fn decode_fields(
                kind: $Kind,
                fields: serde_json::Value,
            ) -> Result<Self, $crate::traced::TracedError> {
                match kind {
                    $($Kind::$Variant => {
                        $crate::traced::from_value_traced::<$Params>(fields).map($Enum::$Variant)
                    })*
                }
            }

            /// Decodes the fields of a value of kind `kind` without tracing the path of a bad
            /// field: half the code of [`Self::decode_fields`] in a wasm binary.
            #[allow(dead_code, reason = "ops are only decoded traced")]
            pub(crate) fn decode_fields_untraced(
                kind: $Kind,
                fields: serde_json::Value,
            ) -> Result<Self, serde_json::Error> {
                match kind {
                    $($Kind::$Variant => {
                        $crate::traced::from_value::<$Params>(fields).map($Enum::$Variant)
                    })*
                }
            }
        }
    };
}

pub(crate) use wire_catalog;
