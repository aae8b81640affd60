//! An MCP server's question as a form (`elicitation/create`, form mode): the server's flat
//! JSON Schema read into fields (text, numbers, yes/no, a choice), and the typed answers turned
//! back into the object the server asked for, with what is missing or wrong said in words.
//! The schema and its texts come from the server: they are shown as text, never as markup.

use serde_json::Map;
use serde_json::Value;

/// Most fields shown: a form longer than this is not a question a person answers in a card.
const MAX_FIELDS: usize = 20;

/// What a field takes.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// Free text.
    Text,
    /// A number (decimals allowed).
    Number,
    /// A whole number.
    Integer,
    /// Yes or no.
    Boolean,
    /// One of these values, each with its label.
    Choice(Vec<(String, String)>),
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Its key in the answer.
    pub name: String,
    /// What to call it (its title, else its name).
    pub label: String,
    /// What it is for.
    pub description: Option<String>,
    /// What it takes.
    pub kind: FieldKind,
    /// Whether an answer needs it.
    pub required: bool,
    /// What it holds before the user types, as text (`true`/`false` for yes/no).
    pub default: String,
}

/// The fields of `schema`, required ones first, each group in name order (JSON objects are
/// read without their order here); properties of kinds a card cannot ask for are left out.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = schema.get("properties") else { return Vec::new() };
    let mut fields: Vec<Field> = properties
        .iter()
        .filter_map(|(name, property)| field(name, property, required.contains(&name.as_str())))
        .take(MAX_FIELDS)
        .collect();
    fields.sort_by_key(|f| !f.required);
    fields
}

fn field(name: &str, property: &Value, required: bool) -> Option<Field> {
    let text = |key: &str| property.get(key).and_then(Value::as_str).map(str::to_owned);
    let kind = match (property.get("enum").and_then(Value::as_array), text("type").as_deref()) {
        (Some(values), _) => {
            let labels = property.get("enumNames").and_then(Value::as_array);
            let choices = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let value = v.as_str()?.to_owned();
                    let label = labels.and_then(|l| l.get(i)).and_then(Value::as_str);
                    Some((value.clone(), label.map_or(value, str::to_owned)))
                })
                .collect();
            FieldKind::Choice(choices)
        }
        (None, Some("string")) => FieldKind::Text,
        (None, Some("number")) => FieldKind::Number,
        (None, Some("integer")) => FieldKind::Integer,
        (None, Some("boolean")) => FieldKind::Boolean,
        _ => return None,
    };
    let default = match property.get("default") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    Some(Field {
        name: name.to_owned(),
        label: text("title").unwrap_or_else(|| name.to_owned()),
        description: text("description"),
        kind,
        required,
        default,
    })
}

/// Why an answer cannot be sent yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A required field is empty (its label).
    Missing(String),
    /// A number field holds something else (its label).
    NotANumber(String),
    /// A whole-number field holds a fraction or something else (its label).
    NotAWholeNumber(String),
}

/// The answer object from what the user entered (`values` by field name, as text); empty
/// optional fields are left out.
pub fn answer(fields: &[Field], values: &Map<String, Value>) -> Result<Value, Problem> {
    let mut out = Map::new();
    for field in fields {
        let entered = values.get(&field.name).and_then(Value::as_str).unwrap_or(&field.default);
        let entered = entered.trim();
        let value = match (&field.kind, entered) {
            (FieldKind::Boolean, text) => Value::Bool(text == "true"),
            (_, "") if field.required => return Err(Problem::Missing(field.label.clone())),
            (_, "") => continue,
            (FieldKind::Text | FieldKind::Choice(_), text) => Value::String(text.to_owned()),
            (FieldKind::Number, text) => {
                match text.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
                    Some(n) => Value::Number(n),
                    None => return Err(Problem::NotANumber(field.label.clone())),
                }
            }
            (FieldKind::Integer, text) => match text.parse::<i64>() {
                Ok(n) => Value::Number(n.into()),
                Err(_) => return Err(Problem::NotAWholeNumber(field.label.clone())),
            },
        };
        out.insert(field.name.clone(), value);
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
