//! Tool patterns and rule precedence.

use pretty_assertions::assert_eq;

use super::*;

fn rule(
    id: &str,
    tool: &str,
    origin: &str,
    verdict: RuleVerdict,
    source: RuleSource,
    at: u64,
) -> Rule {
    Rule::parse(id, tool, origin, verdict, source, at).expect("rule")
}

#[track_caller]
fn check(rules: &[Rule], tool: &str, url: Option<&str>, expect: Option<&str>) {
    let origin = url.map(|it| Origin::parse(it).expect("url"));
    let res = winning_rule(rules, tool, origin.as_ref()).map(|it| it.id.as_str());
    assert_eq!(res, expect);
}

use RuleSource::Approval;
use RuleSource::Plugin;
use RuleSource::User;
use RuleVerdict::Allow;
use RuleVerdict::Ask;
use RuleVerdict::Deny;

const SITE: Option<&str> = Some("https://shop.test");

#[test]
fn tool_patterns() {
    assert_eq!(ToolPattern::parse("*"), Ok(ToolPattern::Any));
    assert_eq!(ToolPattern::parse("click"), Ok(ToolPattern::Exact("click".to_owned())));
    assert_eq!(ToolPattern::parse("mcp__gh__*"), Ok(ToolPattern::Prefix("mcp__gh__".to_owned())));
    assert_eq!(ToolPattern::parse("category:fill"), Ok(ToolPattern::Category(ToolCategory::Fill)));
    assert!(ToolPattern::parse("category:nope").is_err());
    assert!(ToolPattern::parse("a*b").is_err());
    assert!(ToolPattern::parse("").is_err());
    assert!(ToolPattern::Category(ToolCategory::Mcp).matches("mcp__gh__issue"));
    assert!(ToolPattern::Category(ToolCategory::Fill).matches("batch_actions"));
    assert!(!ToolPattern::Category(ToolCategory::Click).matches("read_page"));
}

#[test]
fn no_match_no_rule() {
    let rules = [rule("a", "click", "https://other.test", Deny, User, 1)];
    check(&rules, "click", SITE, None);
    check(&rules, "type", Some("https://other.test"), None);
}

#[test]
fn specificity_beats_source_and_verdict() {
    let rules = [
        rule("broad-user-deny", "*", "*", Deny, User, 9),
        rule("exact-plugin-allow", "click", "https://shop.test", Allow, Plugin, 1),
    ];
    check(&rules, "click", SITE, Some("exact-plugin-allow"));
    check(&rules, "type", SITE, Some("broad-user-deny"));
}

#[test]
fn specificity_ladder() {
    let rules = [
        rule("any", "*", "*", Allow, User, 1),
        rule("category", "category:click", "*", Allow, User, 1),
        rule("prefix", "cli*", "*", Allow, User, 1),
        rule("domain", "cli*", "*.shop.test", Allow, User, 1),
        rule("exact", "click", "https://shop.test", Allow, User, 1),
    ];
    check(&rules, "click", SITE, Some("exact"));
    check(&rules[..4], "click", SITE, Some("domain"));
    check(&rules[..3], "click", SITE, Some("prefix"));
    check(&rules[..2], "click", SITE, Some("category"));
    check(&rules[..1], "click", SITE, Some("any"));
}

#[test]
fn source_beats_verdict() {
    let rules = [
        rule("plugin-deny", "click", "*", Deny, Plugin, 9),
        rule("approval-ask", "click", "*", Ask, Approval, 5),
        rule("user-allow", "click", "*", Allow, User, 1),
    ];
    check(&rules, "click", SITE, Some("user-allow"));
    check(&rules[..2], "click", SITE, Some("approval-ask"));
}

#[test]
fn verdict_beats_recency() {
    let rules = [
        rule("new-allow", "click", "*", Allow, User, 9),
        rule("new-ask", "click", "*", Ask, User, 5),
        rule("old-deny", "click", "*", Deny, User, 1),
    ];
    check(&rules, "click", SITE, Some("old-deny"));
    check(&rules[..2], "click", SITE, Some("new-ask"));
}

#[test]
fn newest_breaks_ties_regardless_of_order() {
    let older = rule("older", "click", "*", Ask, User, 1);
    let newer = rule("newer", "click", "*", Ask, User, 2);
    check(&[older.clone(), newer.clone()], "click", SITE, Some("newer"));
    check(&[newer, older], "click", SITE, Some("newer"));
}

#[test]
fn originless_calls_see_only_star_origins() {
    let rules = [
        rule("site", "memory_write", "https://shop.test", Deny, User, 1),
        rule("star", "memory_write", "*", Ask, User, 1),
    ];
    check(&rules, "memory_write", None, Some("star"));
}
