//! Tests of the connection form module.

use pretty_assertions::assert_eq;

use super::*;

#[test]
fn no_model_means_the_connection_form_first() {
    assert_eq!(first_screen(0), SettingsScreen::ConnectionForm);
    assert_eq!(first_screen(2), SettingsScreen::Overview);
}

#[test]
fn an_empty_form_lists_every_missing_field() {
    let form = ConnectionForm {
        base_url: String::new(),
        ..ConnectionForm::new(ConnectionKind::Anthropic)
    };
    assert_eq!(
        form.validate(),
        Err(vec![
            (Field::Name, FieldProblem::Required),
            (Field::BaseUrl, FieldProblem::Required),
            (Field::DefaultModel, FieldProblem::Required),
        ])
    );
}

#[test]
fn a_filled_form_is_trimmed() {
    let form = ConnectionForm {
        name: " Mine ".to_owned(),
        api_key: " sk-1 ".to_owned(),
        default_model: "gpt-x".to_owned(),
        base_url: "http://localhost:11434/v1/".to_owned(),
        ..ConnectionForm::new(ConnectionKind::OpenAiCompatible)
    };
    assert_eq!(
        form.validate(),
        Ok(ConnectionDraft {
            kind: ConnectionKind::OpenAiCompatible,
            name: "Mine".to_owned(),
            base_url: "http://localhost:11434/v1".to_owned(),
            api_key: "sk-1".to_owned(),
            default_model: "gpt-x".to_owned(),
            headers: Vec::new(),
            quirks: Vec::new(),
        })
    );
}

#[test]
fn headers_are_one_per_line_and_a_bad_line_is_reported() {
    assert_eq!(
        parse_headers("X-Org: acme \n\n  HTTP-Referer:https://a.example"),
        Some(vec![
            ("X-Org".to_owned(), "acme".to_owned()),
            ("HTTP-Referer".to_owned(), "https://a.example".to_owned()),
        ])
    );
    assert_eq!(parse_headers(""), Some(Vec::new()));
    assert_eq!(parse_headers("no colon"), None);
    assert_eq!(parse_headers("Bad Name: x"), None);
    let form = ConnectionForm {
        name: "M".to_owned(),
        default_model: "m".to_owned(),
        headers: "oops".to_owned(),
        ..ConnectionForm::new(ConnectionKind::OpenAiCompatible)
    };
    assert_eq!(form.validate(), Err(vec![(Field::Headers, FieldProblem::BadHeader)]));
    let form = ConnectionForm {
        headers: "X-A: 1".to_owned(),
        quirks: vec!["no_stream_usage".to_owned()],
        ..form
    };
    let input = form.validate().unwrap().to_input();
    assert_eq!(input.custom_headers.map(|h| h.len()), Some(1));
    assert_eq!(input.quirks, ["no_stream_usage"]);
}

#[test]
fn keys_never_go_over_plain_http_to_another_host() {
    assert_eq!(
        [
            "https://api.x",
            "http://api.x",
            "http://localhost:8080",
            "ftp://x",
            "https://",
            "HTTP://127.0.0.1:11434/v1",
            "http://[::1]:8080",
            "http://localhost.evil.example",
            "http://127.0.0.1@evil.example",
        ]
        .map(acceptable_url),
        [true, false, true, false, false, true, true, false, false]
    );
}

#[test]
fn kinds_round_trip_through_select_values() {
    for kind in ConnectionKind::ALL {
        assert_eq!(ConnectionKind::from_value(kind.value()), Some(kind));
    }
}
