//! Origins named in a failed sign-in's status.

use super::origin_of;

#[test]
fn origins_leave_out_path_query_and_user_info() {
    assert_eq!(
        origin_of("https://auth.example.com/oauth/token").as_deref(),
        Some("https://auth.example.com")
    );
    assert_eq!(origin_of("HTTP://127.0.0.1:8080?x=1").as_deref(), Some("http://127.0.0.1:8080"));
    assert_eq!(
        origin_of("https://me:pw@auth.example.com/").as_deref(),
        Some("https://auth.example.com")
    );
    assert_eq!(origin_of("https:///x"), None);
    assert_eq!(origin_of("not a url"), None);
}
