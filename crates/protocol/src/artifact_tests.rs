//! Artifact kinds, download types and filenames.

use super::*;

#[test]
fn the_mime_type_decides_before_the_extension() {
    assert_eq!(ArtifactKind::of("notes.md", None), ArtifactKind::Markdown);
    assert_eq!(ArtifactKind::of("page.HTM", None), ArtifactKind::Html);
    assert_eq!(ArtifactKind::of("data.csv", None), ArtifactKind::Csv);
    assert_eq!(ArtifactKind::of("x.json", None), ArtifactKind::Json);
    assert_eq!(ArtifactKind::of("main.rs", None), ArtifactKind::Code);
    assert_eq!(ArtifactKind::of("README", None), ArtifactKind::Text);
    assert_eq!(
        ArtifactKind::of("report.txt", Some("text/html; charset=utf-8")),
        ArtifactKind::Html
    );
    assert_eq!(ArtifactKind::of("page.html", Some("text/plain")), ArtifactKind::Html);
}

#[test]
fn downloads_are_typed_by_the_model_or_the_kind() {
    assert_eq!(download_mime("a.md", None), "text/markdown;charset=utf-8");
    assert_eq!(download_mime("a.bin", None), "text/plain;charset=utf-8");
    assert_eq!(download_mime("a.md", Some("text/x-markdown")), "text/x-markdown");
    // A type that would break the data URL it is written into is not used.
    assert_eq!(download_mime("a.csv", Some("text/csv,<b>")), "text/csv;charset=utf-8");
    assert_eq!(download_mime("a.json", Some("nonsense")), "application/json;charset=utf-8");
}

#[test]
fn names_with_folders_controls_or_reserved_characters_are_refused() {
    assert_eq!(filename_problem("report 2024.md"), None);
    assert_eq!(filename_problem("отчёт.md"), None);
    for bad in ["", "  ", "../x.md", "a/b.md", "a\\b.md", "a\nb", "a\u{7}b", "x?.md", "..", " a.md"]
    {
        assert!(filename_problem(bad).is_some(), "{bad:?} passed");
    }
    assert!(filename_problem(&"a".repeat(161)).is_some());
    assert_eq!(filename_problem(&"a".repeat(160)), None);
}

#[test]
fn percent_encoding_keeps_what_encode_uri_component_keeps() {
    assert_eq!(percent_encode("a b&c.html"), "a%20b%26c.html");
    assert_eq!(percent_encode("# Hi, ü&%"), "%23%20Hi%2C%20%C3%BC%26%25");
    assert_eq!(percent_encode("-_.!~*'()"), "-_.!~*'()");
}
