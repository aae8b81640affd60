//! Every action is judged where it lands: the tab a call names (not the one the message came
//! from), the page that tab shows, and where a click leads; the host acts only on the page that
//! was judged; the approval card names that page and element; grants bind the judged origin and
//! end with the browser session; taint follows the thread across turns and restarts.

use panelot_protocol::AgentEvent;
use panelot_protocol::ThreadId;
use panelot_protocol::engine::ApprovalFlag;
use panelot_protocol::engine::ErrorCode;
use panelot_protocol::engine::StopReason;
use pretty_assertions::assert_eq;
use serde_json::json;

use super::turn_tests::acked;
use super::turn_tests::approvals;
use super::turn_tests::ask_first;
use super::turn_tests::rejected;
use super::turn_tests::respond;
use super::turn_tests::results;
use super::turn_tests::stops;
use super::turn_tests::submit;
use super::world::Reply;
use super::world::World;
use crate::engine::Effect;
use crate::store::Store;
use crate::store::conformance::block_on;

fn clicks_run(world: &World) -> usize {
    world.executions.iter().filter(|e| e.call.tool == "click" && e.acted_on.is_some()).count()
}

#[test]
fn a_write_is_judged_on_the_tab_it_names_not_the_tab_the_message_came_from() {
    let mut world = World::new();
    // The user writes from the shop tab; the model clicks on the bank tab.
    let bank = world.browser.open("https://www.paypal.com/summary");
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1", "tabId": bank})));
    world.script.push_back(Reply::text("could not"));
    submit(&mut world, &thread, "pay it");
    world.settle();
    assert_eq!(clicks_run(&world), 0, "the click on the sensitive tab never ran");
    let said = results(&world.path(&thread));
    assert!(said[0].contains("https://www.paypal.com is a sensitive origin"), "{said:?}");
    // The same click on the shop tab runs under `auto`.
    world.script.push_back(Reply::tool("click", json!({"ref": "e1", "tabId": 7})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "click on the shop");
    world.settle();
    assert_eq!(clicks_run(&world), 1);
}

#[test]
fn a_link_to_a_sensitive_origin_is_denied_even_on_a_trusted_page() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "pay"})));
    world.script.push_back(Reply::text("no"));
    submit(&mut world, &thread, "go to checkout");
    world.settle();
    assert_eq!(clicks_run(&world), 0);
    let said = results(&world.path(&thread));
    assert!(said[0].contains("it leads to https://www.paypal.com"), "{said:?}");
}

#[test]
fn a_page_that_navigates_while_its_approval_waits_is_not_acted_on() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("the page changed"));
    submit(&mut world, &thread, "click");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1);
    // The user looks away; the page navigates; then the user accepts.
    world.browser.navigate(7, "https://shop.example/elsewhere");
    respond(&mut world, &asked[0].0, json!({"type": "accept"}));
    world.settle();
    assert_eq!(clicks_run(&world), 0, "nothing acts on a page nobody judged");
    let said = results(&world.path(&thread));
    assert!(said[0].contains("target_changed"), "{said:?}");
    assert_eq!(stops(&world), [StopReason::End]);
}

#[test]
fn the_approval_card_names_the_judged_page_and_element_and_highlights_it() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "click");
    world.settle();
    let (approval, request) = approvals(&world).remove(0);
    assert_eq!(request.target_origin.as_deref(), Some("https://shop.example"));
    let target = request.target.as_ref().expect("the card names the target");
    assert_eq!((target.tab_id, target.url.as_str()), (7, "https://shop.example/cart"));
    assert_eq!(
        (target.elements[0].role.as_str(), target.elements[0].name.as_str()),
        ("button", "Button e1")
    );
    let shown = world.highlights();
    assert!(
        matches!(&shown[..], [Effect::Highlight { tab: 7, element_ref: Some(r), .. }] if r == "e1"),
        "{shown:?}"
    );
    respond(&mut world, &approval, json!({"type": "accept"}));
    world.settle();
    assert!(
        matches!(world.highlights().last(), Some(Effect::Highlight { element_ref: None, .. })),
        "the highlight goes with the card"
    );
    assert_eq!(clicks_run(&world), 1);
}

#[test]
fn accept_for_site_stores_a_rule_for_the_judged_origin_only_and_is_refused_without_one() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "click");
    world.settle();
    let (approval, _) = approvals(&world).remove(0);
    assert!(acked(&respond(&mut world, &approval, json!({"type": "acceptForSite"}))));
    world.settle();
    let rules = block_on(world.store.setting(crate::settings::RULES.key())).unwrap().unwrap();
    let granted: Vec<(String, String)> = rules
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["source"] == "approval")
        .map(|r| (r["tool"].as_str().unwrap().to_owned(), r["origin"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(granted, [("click".to_owned(), "https://shop.example".to_owned())]);
    // A write with no origin cannot be granted for a site (it would be a rule for `*`).
    world.script.push_back(Reply::tool("mcp__notes__write", json!({"text": "hi"})));
    world.script.push_back(Reply::text("noted"));
    submit(&mut world, &thread, "note it");
    world.settle();
    let (approval, request) = approvals(&world).remove(1);
    assert_eq!(request.target_origin, None);
    let refused = respond(&mut world, &approval, json!({"type": "acceptForSite"}));
    assert_eq!(rejected(&refused), Some(ErrorCode::InvalidCommand));
    let refused = respond(&mut world, &approval, json!({"type": "acceptForSession"}));
    assert_eq!(rejected(&refused), Some(ErrorCode::InvalidCommand));
    assert!(acked(&respond(&mut world, &approval, json!({"type": "accept"}))));
    world.settle();
    let rules = block_on(world.store.setting(crate::settings::RULES.key())).unwrap().unwrap();
    assert!(!rules.to_string().contains(r#""origin":"*","source":"approval""#), "{rules}");
}

/// The model clicks on the shop; the user allows clicks there for this browser session.
fn click_and_allow_for_session(world: &mut World, thread: &ThreadId) {
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("done"));
    submit(world, thread, "click");
    world.settle();
    let (approval, _) = approvals(world).remove(0);
    respond(world, &approval, json!({"type": "acceptForSession"}));
    world.settle();
}

#[test]
fn a_session_grant_covers_its_origin_until_the_browser_session_ends() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    click_and_allow_for_session(&mut world, &thread);
    // Same tool, same origin, same session: no question.
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::text("done again"));
    submit(&mut world, &thread, "click again");
    world.settle();
    assert_eq!(approvals(&world).len(), 1);
    assert_eq!(clicks_run(&world), 2);
    // Another origin is not covered.
    let news = world.browser.open("https://news.example/");
    world.script.push_back(Reply::tool("click", json!({"ref": "e1", "tabId": news})));
    world.script.push_back(Reply::text("asked"));
    submit(&mut world, &thread, "click the news");
    world.settle();
    assert_eq!(approvals(&world).len(), 2);
    let (pending, _) = approvals(&world).remove(1);
    respond(&mut world, &pending, json!({"type": "decline", "note": null}));
    world.settle();
    // The browser restarts: the grant is gone.
    world.new_browser_session("browser-2");
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("asked again"));
    submit(&mut world, &thread, "click once more");
    world.settle();
    assert_eq!(approvals(&world).len(), 3, "a new browser session asks again");
}

#[test]
fn revoking_a_sites_access_ends_its_session_grants() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    click_and_allow_for_session(&mut world, &thread);
    world.input(crate::driver::Input::HostAccessRemoved(vec!["https://shop.example".into()]));
    world.script.push_back(Reply::tool("click", json!({"ref": "e2"})));
    world.script.push_back(Reply::text("asked"));
    submit(&mut world, &thread, "click again");
    world.settle();
    assert_eq!(approvals(&world).len(), 2);
}

#[test]
fn taint_follows_the_thread_across_turns_and_restarts() {
    let mut world = World::new();
    let thread = world.create_thread();
    // Turn 1 reads a page that plants a URL.
    world.script.push_back(Reply::tool("read_page", json!({"ref": "lure"})));
    world.script.push_back(Reply::text("The page says your session expired."));
    submit(&mut world, &thread, "what does the page say?");
    world.settle();
    world.restart();
    // Turn 2: the user says to go along; the model navigates to the planted URL.
    world
        .script
        .push_back(Reply::tool("navigate", json!({"url": "https://evil.example/login?next=cart"})));
    world.script.push_back(Reply::text("ok"));
    submit(&mut world, &thread, "OK, do what the page says");
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 1, "a destination the page chose asks even under auto");
    assert!(asked[0].1.flags.contains(&ApprovalFlag::TaintedInput));
    assert_eq!(asked[0].1.taint[0].source, "https://shop.example");
    assert!(world.executions.iter().all(|e| e.call.tool != "navigate"));
}

#[test]
fn a_write_that_sends_its_tab_somewhere_sensitive_ends_the_runs_actions_there() {
    let mut world = World::new();
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "redirect"})));
    world.script.push_back(Reply::tool("read_page", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("stopped"));
    submit(&mut world, &thread, "click the banner");
    world.settle();
    let said = results(&world.path(&thread));
    assert!(said[0].contains("Panelot will not act on that tab again"), "{said:?}");
    assert!(said[1].contains("stopped acting on tab 7"), "{said:?}");
    let reads = world.executions.iter().filter(|e| e.call.tool == "read_page").count();
    assert_eq!(reads, 0, "the blocked tab was not read either");
}

#[test]
fn tabs_updated_tells_the_views_which_tabs_the_run_read_drove_and_opened() {
    use panelot_protocol::engine::TabRole;
    let mut world = World::new();
    let other = world.browser.open("https://docs.example/guide");
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("read_page", json!({"tabId": other})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e1", "tabId": 7})));
    world.script.push_back(Reply::text("done"));
    submit(&mut world, &thread, "read the guide, then add to cart");
    world.settle();
    let updates: Vec<Vec<(u32, String, TabRole)>> = world.events(|e| match e {
        AgentEvent::TabsUpdated(update) => {
            assert_eq!(update.thread_id, thread);
            Some(update.tabs.iter().map(|t| (t.tab_id, t.url.clone(), t.role)).collect())
        }
        _ => None,
    });
    let guide = (other, "https://docs.example/guide".to_owned(), TabRole::Read);
    let cart = (7, "https://shop.example/cart".to_owned(), TabRole::Driven);
    assert_eq!(updates, [vec![guide.clone()], vec![guide, cart]], "one update per change");
}

/// An action in a frame of another origin (a payment form on the shop's page) is
/// judged by the frame's origin: asked about with it on the card, granted for it alone, and
/// denied where the frame's origin is sensitive even though the page around it is not.
#[test]
fn an_action_in_a_frame_is_judged_asked_and_granted_by_the_frames_origin() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "f5e1"})));
    world.script.push_back(Reply::text("paid"));
    submit(&mut world, &thread, "pay");
    world.settle();
    let (approval, request) = approvals(&world).remove(0);
    assert_eq!(request.target_origin.as_deref(), Some("https://pay.example"));
    let target = request.target.as_ref().expect("the card names the target");
    assert_eq!((target.tab_id, target.url.as_str()), (7, "https://pay.example/card"));
    assert!(acked(&respond(&mut world, &approval, json!({"type": "acceptForSite"}))));
    world.settle();
    assert_eq!(clicks_run(&world), 1);
    let rules = block_on(world.store.setting(crate::settings::RULES.key())).unwrap().unwrap();
    let granted: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["source"] == "approval")
        .map(|r| r["origin"].as_str().unwrap())
        .collect();
    assert_eq!(granted, ["https://pay.example"], "the frame's origin, not the shop's");
    // The frame again: granted. The shop's own button: still asked.
    world.script.push_back(Reply::tool("click", json!({"ref": "f5e2"})));
    world.script.push_back(Reply::tool("click", json!({"ref": "e1"})));
    world.script.push_back(Reply::text("asked"));
    submit(&mut world, &thread, "again");
    world.settle();
    assert_eq!(clicks_run(&world), 2);
    let asked = approvals(&world);
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1].1.target_origin.as_deref(), Some("https://shop.example"));
    respond(&mut world, &asked[1].0, json!({"type": "decline", "note": null}));
    world.settle();
    // The views are told the tab is at the shop's page, not the frame's.
    let urls: Vec<String> = world
        .events(|e| match e {
            AgentEvent::TabsUpdated(update) => {
                Some(update.tabs.iter().map(|t| t.url.clone()).collect::<Vec<_>>())
            }
            _ => None,
        })
        .concat();
    assert!(
        !urls.is_empty() && urls.iter().all(|url| url == "https://shop.example/cart"),
        "{urls:?}"
    );
    // A frame on a sensitive origin is denied on a page that is not.
    world.script.push_back(Reply::tool("click", json!({"ref": "f9e1"})));
    world.script.push_back(Reply::text("could not"));
    submit(&mut world, &thread, "pay with paypal");
    world.settle();
    assert_eq!(clicks_run(&world), 2, "the click in the sensitive frame never ran");
    let said = results(&world.path(&thread));
    assert!(
        said.iter().any(|s| s.contains("https://www.paypal.com is a sensitive origin")),
        "{said:?}"
    );
}

/// A frame's target is gone with its page: a navigation while the question waits refuses it.
#[test]
fn an_action_in_a_frame_of_a_page_that_navigated_is_not_acted_on() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("click", json!({"ref": "f5e1"})));
    world.script.push_back(Reply::text("the page changed"));
    submit(&mut world, &thread, "pay");
    world.settle();
    let (approval, _) = approvals(&world).remove(0);
    world.browser.navigate(7, "https://shop.example/elsewhere");
    respond(&mut world, &approval, json!({"type": "accept"}));
    world.settle();
    assert_eq!(clicks_run(&world), 0, "nothing acts in a frame nobody judged");
    let said = results(&world.path(&thread));
    assert!(said[0].contains("target_changed"), "{said:?}");
}

/// Sends `text` with a turn that enables `levels`.
fn submit_with_levels(world: &mut World, thread: &ThreadId, text: &str, levels: &[&str]) {
    let id = world.submission();
    let overrides = json!({"model": null, "permissionPolicy": null, "enabledToolLevels": levels});
    let msg = json!({"type": "turn.submit", "submissionId": id, "threadId": thread,
        "input": super::world::input(text), "overrides": overrides});
    assert!(acked(&world.send(msg).into_iter().map(|f| f.event).collect::<Vec<_>>()));
}

fn tools_run(world: &World) -> Vec<(String, serde_json::Value)> {
    world
        .executions
        .iter()
        .filter(|e| e.acted_on.is_some())
        .map(|e| (e.call.tool.clone(), e.call.params.clone()))
        .collect()
}

/// `type` that does not take runs once more as `type_trusted` when the turn offers it; the
/// model reads both what failed and what the trusted attempt did, on its one call.
#[test]
fn typing_that_does_not_take_escalates_once_to_trusted_input_when_the_turn_offers_it() {
    let mut world = World::new();
    let thread = world.create_thread();
    let typed = json!({"ref": "stubborn", "text": "Ada", "submit": true, "slowly": true});
    world.script.push_back(Reply::tool("type", typed.clone()));
    world.script.push_back(Reply::text("typed"));
    submit_with_levels(&mut world, &thread, "fill the name", &["L0", "L1", "L2"]);
    world.settle();
    let trusted = json!({"ref": "stubborn", "text": "Ada", "submit": true});
    assert_eq!(
        tools_run(&world),
        [("type".to_owned(), typed.clone()), ("type_trusted".to_owned(), trusted)],
        "one escalation, with the parameters the trusted tool takes"
    );
    let said = results(&world.path(&thread));
    assert_eq!(said.len(), 1, "one call, one result: {said:?}");
    assert!(said[0].starts_with("type_trusted done on stubborn"), "{said:?}");
    assert!(
        said[0].contains("`type` did not take (l1_not_effective: the field did not take the text)"),
        "{said:?}"
    );
    assert_eq!(stops(&world), [StopReason::End]);

    // A turn without the debugger's tools reads the failure as it is.
    world.executions.clear();
    world.script.push_back(Reply::tool("type", typed.clone()));
    world.script.push_back(Reply::text("could not"));
    submit_with_levels(&mut world, &thread, "again", &["L0", "L1"]);
    world.settle();
    assert_eq!(tools_run(&world), [("type".to_owned(), typed)]);
    let said = results(&world.path(&thread));
    assert_eq!(
        said.last().map(String::as_str),
        Some("Error: l1_not_effective: the field did not take the text")
    );
}

/// The escalated call is judged again: a user who approved `type` is asked about trusted input,
/// with the card saying so, and declining it ends the call without trusted input.
#[test]
fn an_escalation_is_asked_about_again_and_can_be_declined() {
    let mut world = World::new();
    ask_first(&world);
    let thread = world.create_thread();
    world.script.push_back(Reply::tool("type", json!({"ref": "stubborn", "text": "Ada"})));
    world.script.push_back(Reply::text("stopped"));
    submit_with_levels(&mut world, &thread, "fill the name", &["L0", "L1", "L2"]);
    world.settle();
    let (first, request) = approvals(&world).remove(0);
    assert_eq!(request.tool, "type");
    assert!(acked(&respond(&mut world, &first, json!({"type": "accept"}))));
    world.settle();
    let asked = approvals(&world);
    assert_eq!(asked.len(), 2, "the trusted attempt is asked about");
    let (second, request) = &asked[1];
    assert_eq!(request.tool, "type_trusted");
    assert!(request.flags.contains(&ApprovalFlag::EscalationL2), "{:?}", request.flags);
    respond(&mut world, second, json!({"type": "decline", "note": null}));
    world.settle();
    assert_eq!(tools_run(&world).len(), 1, "only the synthetic attempt ran");
    let said = results(&world.path(&thread));
    assert!(said[0].contains("`type` did not take"), "{said:?}");
    assert!(said[0].contains("declined"), "{said:?}");
}
