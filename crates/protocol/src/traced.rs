//! The one deserializer of JSON values in the workspace's wasm binaries: it reads an owned
//! [`Value`] and remembers the path of the first bad field (`input.attachedContext[0].content`).
//!
//! Every `Deserialize` impl is compiled once per deserializer type it is used with. Reading Ops
//! through `serde_path_to_error` over serde_json's value deserializer, and everything else
//! through that deserializer alone, compiled most types twice, each time with a layer of generic
//! wrappers. This deserializer does the tracing itself, so every caller (traced or not) shares
//! one copy of each type's decoder. Paths are spelled as `serde_path_to_error` spells them
//! (`a.b[2].c`, `.` for the root) and each error is the one serde_json's value deserializer
//! gives, with one refusal more: a struct written as an array (`[1, 2]` for `{"a": 1, "b": 2}`),
//! which serde accepts and nothing writes, is refused as the wrong type, so the sequence form of
//! every struct decoder is not compiled.

use std::cell::RefCell;
use std::fmt::Write as _;

use serde::Deserializer;
use serde::de::DeserializeOwned;
use serde::de::DeserializeSeed;
use serde::de::EnumAccess;
use serde::de::Error as _;
use serde::de::Expected;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Unexpected;
use serde::de::VariantAccess;
use serde::de::Visitor;
use serde::de::value::StrDeserializer;
use serde::forward_to_deserialize_any;
use serde_json::Error;
use serde_json::Map;
use serde_json::Value;

/// A decoding error with the path of the value it is about.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {error}")]
pub struct TracedError {
    /// Where the error is, as `serde_path_to_error` spells it (`.` for the whole value).
    pub path: String,
    /// What is wrong, as serde_json's value deserializer says it.
    pub error: Error,
}

/// Deserializes `T` from `value`, naming the path of the first bad field on error.
pub fn from_value_traced<T: DeserializeOwned>(value: Value) -> Result<T, TracedError> {
    let track = Track::default();
    match T::deserialize(De { value, chain: &Chain::Root, track: &track }) {
        Ok(res) => Ok(res),
        Err(error) => Err(TracedError { path: track.take(), error }),
    }
}

/// Deserializes `T` from `value` through the same deserializer as [`from_value_traced`], without
/// the path: a drop-in for `serde_json::from_value` that adds no second decoder of `T`.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    let track = Track::default();
    T::deserialize(De { value, chain: &Chain::Root, track: &track })
}

/// Where a value sits, as a list linked through the callers' stack frames.
enum Chain<'a> {
    Root,
    Key { parent: &'a Chain<'a>, key: &'a str },
    Index { parent: &'a Chain<'a>, index: usize },
}

/// The path of the first error, written where the error leaves a member, an element or an enum's
/// content, the deepest first; so an element's own check after it was read (an id's characters)
/// names the element. An error that leaves nothing of these is about the whole value (`.`).
#[derive(Default)]
struct Track {
    path: RefCell<Option<String>>,
}

impl Track {
    /// Records `chain` as the error's path unless a deeper one was recorded; returns `err`.
    #[cold]
    #[inline(never)]
    fn fail(&self, chain: &Chain<'_>, err: Error) -> Error {
        let mut path = self.path.borrow_mut();
        if path.is_none() {
            *path = Some(render(chain));
        }
        err
    }

    fn take(&self) -> String {
        self.path.borrow_mut().take().unwrap_or_else(|| ".".to_owned())
    }
}

fn render(chain: &Chain<'_>) -> String {
    let mut segments = Vec::new();
    let mut at = chain;
    loop {
        match at {
            Chain::Root => break,
            Chain::Key { parent, key } => {
                segments.push(Err(*key));
                at = parent;
            }
            Chain::Index { parent, index } => {
                segments.push(Ok(*index));
                at = parent;
            }
        }
    }
    if segments.is_empty() {
        return ".".to_owned();
    }
    let mut path = String::new();
    for (idx, segment) in segments.iter().rev().enumerate() {
        match segment {
            Ok(index) => {
                let _ = write!(path, "[{index}]");
            }
            Err(key) => {
                if idx > 0 {
                    path.push('.');
                }
                path.push_str(key);
            }
        }
    }
    path
}

/// What serde's error messages call a value of this kind.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(n), _) => Unexpected::Unsigned(n),
            (None, Some(n)) => Unexpected::Signed(n),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

#[cold]
fn invalid_type(value: &Value, expected: &dyn Expected) -> Error {
    Error::invalid_type(unexpected(value), expected)
}

/// One value and where it sits.
struct De<'a> {
    value: Value,
    chain: &'a Chain<'a>,
    track: &'a Track,
}

/// Forwards a primitive request to serde_json's value deserializer, which has no nested values to
/// trace.
macro_rules! forward_to_value {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                self.value.$method(visitor)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for De<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => n.deserialize_any(visitor),
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visit_array(items, self.chain, self.track, visitor),
            Value::Object(fields) => visit_object(fields, self.chain, self.track, visitor),
        }
    }

    forward_to_value! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_unit deserialize_identifier
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visit_array(items, self.chain, self.track, visitor),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => visit_array(items, self.chain, self.track, visitor),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(fields) => visit_object(fields, self.chain, self.track, visitor),
            other => Err(invalid_type(&other, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (variant, value) = split_variant(self.value)?;
        visitor.visit_enum(Enum { variant, value, chain: self.chain, track: self.track })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        drop(self.value);
        visitor.visit_unit()
    }
}

/// An enum's variant name and content: `"name"` or `{"name": content}`.
fn split_variant(value: Value) -> Result<(String, Option<Value>), Error> {
    match value {
        Value::Object(fields) => {
            let mut iter = fields.into_iter();
            match (iter.next(), iter.next()) {
                (Some((variant, content)), None) => Ok((variant, Some(content))),
                _ => Err(Error::invalid_value(Unexpected::Map, &"map with a single key")),
            }
        }
        Value::String(variant) => Ok((variant, None)),
        other => Err(invalid_type(&other, &"string or map")),
    }
}

fn visit_array<'de, V: Visitor<'de>>(
    items: Vec<Value>,
    chain: &Chain<'_>,
    track: &Track,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = Seq { items: items.into_iter(), index: 0, chain, track };
    let res = visitor.visit_seq(&mut seq)?;
    match seq.items.len() {
        0 => Ok(res),
        _ => Err(Error::invalid_length(len, &"fewer elements in array")),
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    fields: Map<String, Value>,
    chain: &Chain<'_>,
    track: &Track,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = fields.len();
    let mut map =
        Fields { fields: fields.into_iter(), key: String::new(), value: None, chain, track };
    let res = visitor.visit_map(&mut map)?;
    match map.fields.len() {
        0 => Ok(res),
        _ => Err(Error::invalid_length(len, &"fewer elements in map")),
    }
}

struct Seq<'a> {
    items: std::vec::IntoIter<Value>,
    index: usize,
    chain: &'a Chain<'a>,
    track: &'a Track,
}

// The generic methods below are compiled once per element or member type; what does not depend
// on the type is in these functions, compiled once.
impl Seq<'_> {
    #[inline(never)]
    fn advance(&mut self) -> Option<(usize, Value)> {
        let value = self.items.next()?;
        let index = self.index;
        self.index += 1;
        Some((index, value))
    }
}

impl<'de> SeqAccess<'de> for Seq<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some((index, value)) = self.advance() else {
            return Ok(None);
        };
        let chain = Chain::Index { parent: self.chain, index };
        match seed.deserialize(De { value, chain: &chain, track: self.track }) {
            Ok(res) => Ok(Some(res)),
            Err(err) => Err(self.track.fail(&chain, err)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Fields<'a> {
    fields: serde_json::map::IntoIter,
    /// The key of the value `next_value_seed` reads next.
    key: String,
    value: Option<Value>,
    chain: &'a Chain<'a>,
    track: &'a Track,
}

impl Fields<'_> {
    /// Moves to the next member, whose key is then `self.key`; false at the end.
    #[inline(never)]
    fn advance(&mut self) -> bool {
        let Some((key, value)) = self.fields.next() else {
            return false;
        };
        self.key = key;
        self.value = Some(value);
        true
    }

    #[inline(never)]
    fn take_value(&mut self) -> Result<Value, Error> {
        self.value.take().ok_or_else(|| Error::custom("value is missing"))
    }

    /// An error about the current key (an unknown field) is named by the key.
    #[cold]
    #[inline(never)]
    fn key_error(&self, err: Error) -> Error {
        self.track.fail(&Chain::Key { parent: self.chain, key: &self.key }, err)
    }
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if !self.advance() {
            return Ok(None);
        }
        match seed.deserialize(Key(&self.key)) {
            Ok(res) => Ok(Some(res)),
            Err(err) => Err(self.key_error(err)),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self.take_value()?;
        let chain = Chain::Key { parent: self.chain, key: &self.key };
        match seed.deserialize(De { value, chain: &chain, track: self.track }) {
            Ok(res) => Ok(res),
            Err(err) => Err(self.track.fail(&chain, err)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

/// An object's key, read as a string (also by the key types of maps, such as ids). serde_json also
/// reads a key as an integer for a map with integer keys; no decoded type has one.
struct Key<'a>(&'a str);

impl<'de> Deserializer<'de> for Key<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(StrDeserializer::<Error>::new(self.0))
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

struct Enum<'a> {
    variant: String,
    value: Option<Value>,
    chain: &'a Chain<'a>,
    track: &'a Track,
}

impl<'de, 'a> EnumAccess<'de> for Enum<'a> {
    type Error = Error;
    type Variant = Variant<'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Variant<'a>), Error> {
        let name = seed.deserialize(Key(&self.variant))?;
        let Enum { variant, value, chain, track } = self;
        Ok((name, Variant { variant, value, chain, track }))
    }
}

/// An enum's content; errors inside it are named under the variant (`a.Variant.field`).
struct Variant<'a> {
    variant: String,
    value: Option<Value>,
    chain: &'a Chain<'a>,
    track: &'a Track,
}

impl<'de> VariantAccess<'de> for Variant<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        let chain = Chain::Key { parent: self.chain, key: &self.variant };
        match self.value {
            None | Some(Value::Null) => Ok(()),
            Some(other) => Err(self.track.fail(&chain, invalid_type(&other, &"unit"))),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        let chain = Chain::Key { parent: self.chain, key: &self.variant };
        let track = self.track;
        let res = match self.value {
            Some(value) => seed.deserialize(De { value, chain: &chain, track }),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"newtype variant")),
        };
        res.map_err(|err| track.fail(&chain, err))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        let chain = Chain::Key { parent: self.chain, key: &self.variant };
        let track = self.track;
        let res = match self.value {
            Some(Value::Array(items)) if items.is_empty() => visitor.visit_unit(),
            Some(Value::Array(items)) => visit_array(items, &chain, track, visitor),
            Some(other) => Err(invalid_type(&other, &"tuple variant")),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"tuple variant")),
        };
        res.map_err(|err| track.fail(&chain, err))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let chain = Chain::Key { parent: self.chain, key: &self.variant };
        let track = self.track;
        let res = match self.value {
            Some(Value::Object(fields)) => visit_object(fields, &chain, track, visitor),
            Some(other) => Err(invalid_type(&other, &"struct variant")),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"struct variant")),
        };
        res.map_err(|err| track.fail(&chain, err))
    }
}

#[cfg(test)]
#[path = "traced_tests.rs"]
mod tests;
