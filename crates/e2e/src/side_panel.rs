//! The real side panel path, for tests of what a person using Panelot sees and does.
//!
//! [`Panel::launch`] starts headless Chromium with the product build (by default) and:
//!
//! * pages served by one [`Sites`] listener under made-up origins (`http://shop.x.test:PORT`,
//!   `http://x.bank.panelot.gov:PORT`), through `--host-resolver-rules`;
//! * a profile in which the user granted `http://*.test/*` and `http://*.panelot.gov/*` before
//!   ([`granted_before`]): the manifest grants only `http://127.0.0.1/*` up front, so the first
//!   call on such an origin still fails for lack of access, the approval card asks Chrome for
//!   that one origin inside the Allow click, and Chrome grants it without the dialog headless
//!   Chromium cannot show. [`Panel::grant`] does the same from the driver page, for tests about
//!   something else;
//! * a driver page (`options.html`, in a window of its own that is never focused again) that
//!   configures the engine over a Port (a connection to the mock provider, settings, rules) and
//!   opens tabs;
//! * a focused window whose tabs are the pages, with the real side panel opened for it
//!   (`chrome.sidePanel.open` from the driver inside a user gesture) and attached over CDP.
//!
//! A turn is a message typed into the panel's composer and sent with Enter
//! ([`Panel::run_turn`]). Approval cards are answered by clicking their buttons with real mouse
//! events ([`Decision`]), as [`TurnHooks`] decide: Allow and Decline are on the card, the other
//! choices in its menu, which a click opens first. A turn is over when the engine's thread list
//! says the thread has that many completed turns, nothing running and no approval waiting. The
//! model is a [`ScriptedModel`].
//!
//! Every selector of the UI is in [`sel`], so a renamed class is one edit.

use std::time::Duration;
use std::time::Instant;

use anyhow::Context;
use anyhow::bail;
use panelot_testkit::cdp::Page;
use panelot_testkit::chromium::loopback_hosts;
use panelot_testkit::granted_before;
use panelot_testkit::mock_provider::MockProvider;
use panelot_testkit::sites::Sites;
use serde_json::Value;
use serde_json::json;

use crate::Browser;
use crate::Flavor;
use crate::scripted_model::ScriptedModel;

/// How long one turn may take, approvals included; a safety net, not a timing assertion.
pub const TURN_DEADLINE: Duration = Duration::from_secs(45);

/// How long a page or the panel may take to reach a state.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// How long an answered card may stay before the answer counts as refused.
const CARD_DEADLINE: Duration = Duration::from_secs(10);

/// The UI's selectors and the scripts that read it, in one place.
pub mod sel {
    /// The engine status a page shows once connected.
    pub const READY: &str =
        "document.querySelector('#engine-status')?.dataset.engineStatus === 'ready'";
    /// The composer's text area.
    pub const COMPOSER: &str = ".composer textarea";
    /// The pending approval card, as `{tool, header, flags, params, text}` or `null`; the
    /// header is the card's sentence and the origin it names.
    pub const CARD: &str = "(() => {
        const c = document.querySelector('.approval-card');
        if (!c) return null;
        const text = (s) => c.querySelector(s)?.textContent?.trim() ?? '';
        return {
            tool: text('.tool'),
            header: `${text('.approval-sentence')} — ${text('.approval-site')}`,
            flags: [...c.querySelectorAll('[data-flag]')].map((f) => f.dataset.flag),
            params: c.querySelector('.params')?.textContent ?? '',
            text: c.innerText,
        };
    })()";
    /// The card's menu button (the choices besides Allow and Decline).
    pub const CARD_MENU: &str = ".approval-card .approval-more";
    /// The "New chat" button of the side panel's toolbar.
    pub const NEW_CHAT: &str = "[...document.querySelectorAll('.new-thread, .toolbar button')]
        .find((b) => b.classList.contains('new-thread') || b.textContent.trim() === 'New chat')";

    /// A script returning the centre of the element `selector` (scrolled into view) as
    /// `[x, y]`; `"hidden"` when it is there but not shown (a closed menu's item); `null` when
    /// there is none.
    pub fn centre_of(selector: &str) -> String {
        format!(
            "(() => {{
                const b = document.querySelector({selector:?});
                if (!b) return null;
                if (!b.checkVisibility()) return 'hidden';
                b.scrollIntoView({{ block: 'center' }});
                const r = b.getBoundingClientRect();
                return [r.x + r.width / 2, r.y + r.height / 2];
            }})()"
        )
    }

    /// The selector of the card's button for `decision` (its `data-decision`).
    pub fn decision_button(data: &str) -> String {
        format!(".approval-card button[data-decision={data:?}]")
    }
}

/// An answer to an approval card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// "Allow once".
    Allow,
    /// "Allow this session".
    AllowSession,
    /// "Always allow on this site".
    AllowSite,
    /// "Decline".
    Decline,
    /// "Decline and stop".
    Cancel,
}

impl Decision {
    /// The `data-decision` of its button.
    pub fn data(self) -> &'static str {
        match self {
            Decision::Allow => "accept",
            Decision::AllowSession => "accept_for_session",
            Decision::AllowSite => "accept_for_site",
            Decision::Decline => "decline",
            Decision::Cancel => "cancel",
        }
    }
}

/// An approval card as the panel showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// The tool's name.
    pub tool: String,
    /// The sentence and the origin ("Type “x” into textbox “Note” on shop.x.test:1234 —
    /// http://shop.x.test:1234 · Shop").
    pub header: String,
    /// `data-flag` of each flag shown (`sensitive_payload`, `host_permission`, …).
    pub flags: Vec<String>,
    /// The parameters as shown.
    pub params: String,
    /// Everything the card says.
    pub text: String,
}

impl Card {
    fn from_json(value: &Value) -> Option<Card> {
        let text = |key: &str| value[key].as_str().unwrap_or_default().to_owned();
        value.is_object().then(|| Card {
            tool: text("tool"),
            header: text("header"),
            flags: value["flags"]
                .as_array()
                .map(|f| f.iter().filter_map(|f| f.as_str().map(str::to_owned)).collect())
                .unwrap_or_default(),
            params: text("params"),
            text: text("text"),
        })
    }

    /// Whether the card shows flag `name`.
    pub fn has_flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
}

/// What a turn does besides waiting: see [`Panel::run_turn`].
pub trait TurnHooks {
    /// The answer to `card`, after changing whatever the test wants changed while it shows.
    fn answer(&mut self, panel: &mut Panel, card: &Card) -> anyhow::Result<Decision>;

    /// Runs between looks at the panel.
    fn poll(&mut self, _panel: &mut Panel) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Hooks from a function that answers cards.
impl<F> TurnHooks for F
where
    F: FnMut(&mut Panel, &Card) -> anyhow::Result<Decision>,
{
    fn answer(&mut self, panel: &mut Panel, card: &Card) -> anyhow::Result<Decision> {
        self(panel, card)
    }
}

/// A web tab in the panel's window: Chrome's tab id and a CDP session on its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebTab {
    /// `chrome.tabs` id.
    pub id: i64,
    /// The page target, attached.
    pub page: Page,
}

/// What to launch.
#[derive(Debug, Clone)]
pub struct PanelOptions {
    /// The extension build; the product by default.
    pub flavor: Flavor,
    /// Host patterns resolved to the loopback listener.
    pub hosts: Vec<String>,
    /// Host patterns the profile granted the extension earlier (see the module docs).
    pub granted_before: Vec<String>,
}

impl Default for PanelOptions {
    fn default() -> Self {
        PanelOptions {
            flavor: Flavor::Product,
            hosts: vec!["*.test".to_owned(), "*.panelot.gov".to_owned()],
            granted_before: vec!["http://*.test/*".to_owned(), "http://*.panelot.gov/*".to_owned()],
        }
    }
}

/// See the module docs.
#[derive(Debug)]
pub struct Panel {
    /// The browser.
    pub browser: Browser,
    /// The model provider the engine is configured with.
    pub server: MockProvider,
    /// The script answering it.
    pub model: ScriptedModel,
    /// The pages' server.
    pub sites: Sites,
    /// The extension page that configures the engine and opens tabs.
    pub driver: Page,
    /// The side panel.
    pub panel: Page,
    /// The window the side panel belongs to.
    pub window: i64,
    /// The window's first tab, which stays open.
    pub home: WebTab,
    /// When the current chat began (ms since the epoch); its thread is the newest one created
    /// since.
    chat_started_ms: u64,
    /// Turns sent in the current chat.
    turns_sent: u64,
    /// Submissions the driver sent.
    submissions: u64,
}

/// The home page, on an origin no test acts on.
const HOME: &str = "<!doctype html><title>Home</title><p>Panelot end-to-end home.</p>";

impl Panel {
    /// Launches the browser, configures the engine and opens the side panel (see the module
    /// docs).
    pub fn launch(options: PanelOptions) -> anyhow::Result<Panel> {
        let sites = Sites::start()?;
        let server = MockProvider::start();
        let model = ScriptedModel::install(&server);
        let hosts: Vec<&str> = options.hosts.iter().map(String::as_str).collect();
        let granted: Vec<&str> = options.granted_before.iter().map(String::as_str).collect();
        let mut browser = Browser::launch_with(options.flavor, |launch, id| {
            launch.extra_args.push(loopback_hosts(&hosts));
            launch.preferences = Some(granted_before(id, &granted));
        })?;
        let driver = browser.open_extension_page("options.html")?;
        browser.cdp.wait_until(&driver, sel::READY, DEADLINE).context("the engine is not ready")?;

        sites.add_page("home.test", "/", HOME);
        let home_url = sites.url("home.test", "/");
        let opened = browser.cdp.evaluate(
            &driver,
            &format!(
                "chrome.windows.create({{ url: {url}, focused: true }})
                    .then((w) => [w.id, w.tabs[0].id])",
                url = json!(home_url)
            ),
        )?;
        let window = opened[0].as_i64().context("no window id")?;
        let home_id = opened[1].as_i64().context("no tab id")?;
        let mut panel = Panel {
            browser,
            server,
            model,
            sites,
            driver,
            panel: Page { target_id: String::new(), session_id: String::new() },
            window,
            home: WebTab {
                id: home_id,
                page: Page { target_id: String::new(), session_id: String::new() },
            },
            chat_started_ms: 0,
            turns_sent: 0,
            submissions: 0,
        };
        panel.home = panel.attach_tab(home_id, &home_url)?;

        // The connection and the default policy, as the options page would save them.
        let base_url = panel.server.base_url();
        panel.ops(&json!([
            {"send": {"type": "connection.save", "submissionId": "save", "connection": {
                "id": null, "name": "Mock", "kind": "openai", "baseUrl": format!("{base_url}/v1"),
                "apiKeys": [], "enabled": true, "modelIds": ["mock-model"],
                "customHeaders": null, "quirks": []}},
             "until": "command.ack"},
        ]))?;
        panel.set_policy("untrusted")?;

        // `sidePanel.open` needs a user gesture; CDP evaluation carries one.
        let opened = panel.browser.cdp.evaluate(
            &panel.driver,
            &format!("chrome.sidePanel.open({{ windowId: {window} }}).then(() => true)"),
        )?;
        anyhow::ensure!(opened == json!(true), "sidePanel.open answered {opened}");
        let target = panel
            .browser
            .cdp
            .wait_for_target("page", DEADLINE, |url| url.contains("/sidepanel.html"))?;
        panel.panel = panel.browser.cdp.attach(&target)?;
        panel.browser.cdp.wait_until(&panel.panel, sel::READY, DEADLINE)?;
        panel.chat_started_ms = crate::executor::now_ms();
        Ok(panel)
    }

    /// Runs a conversation of `steps` from the driver page (see [`crate::conversation`]) and
    /// returns the messages the engine sent.
    pub fn ops(&mut self, steps: &Value) -> anyhow::Result<Vec<Value>> {
        // The engine answers a submission id it has seen with its first answer, so every op
        // gets a fresh one.
        let mut steps = steps.clone();
        for step in steps.as_array_mut().into_iter().flatten() {
            self.submissions += 1;
            let id = format!("driver-{}", self.submissions);
            step["send"]["submissionId"] = json!(id);
        }
        let script = crate::conversation::script("e2e-panel-driver", &steps);
        let result = self.browser.cdp.evaluate(&self.driver, &script)?;
        if result["how"] != "complete" {
            bail!("the driver's conversation ended {}: {result}", result["how"]);
        }
        let events = result["events"].as_array().cloned().unwrap_or_default();
        Ok(events.into_iter().map(|e| e["event"].clone()).collect())
    }

    /// The engine's settings (`settings.state`).
    pub fn settings(&mut self) -> anyhow::Result<Value> {
        let events = self.ops(&json!([
            {"send": {"type": "settings.get", "submissionId": "get"}, "until": "settings.state"}
        ]))?;
        events
            .into_iter()
            .find(|e| e["type"] == "settings.state")
            .map(|e| e["settings"].clone())
            .context("no settings.state")
    }

    /// Sets the default permission policy (`auto`, `untrusted`, `always`).
    pub fn set_policy(&mut self, policy: &str) -> anyhow::Result<()> {
        self.update_settings(&json!({"permissionPolicy": policy}))
    }

    /// `settings.update` with `patch`.
    pub fn update_settings(&mut self, patch: &Value) -> anyhow::Result<()> {
        let events = self.ops(&json!([
            {"send": {"type": "settings.update", "submissionId": "set", "patch": patch},
             "until": "command.ack"}
        ]))?;
        if let Some(rejected) = events.iter().find(|e| e["type"] == "command.rejected") {
            bail!("settings.update {patch} was rejected: {rejected}");
        }
        Ok(())
    }

    /// The permission rules in force.
    pub fn rules(&mut self) -> anyhow::Result<Vec<Value>> {
        Ok(self.settings()?["rules"].as_array().cloned().unwrap_or_default())
    }

    /// Deletes every rule not in `keep` (by id).
    pub fn delete_rules_except(&mut self, keep: &[&str]) -> anyhow::Result<()> {
        for rule in self.rules()? {
            let id = rule["id"].as_str().unwrap_or_default().to_owned();
            if keep.contains(&id.as_str()) {
                continue;
            }
            self.ops(&json!([
                {"send": {"type": "rule.delete", "submissionId": "del", "ruleId": id},
                 "until": "command.ack"}
            ]))?;
        }
        Ok(())
    }

    /// The thread list (`thread.list`), most recently updated first.
    pub fn threads(&mut self) -> anyhow::Result<Vec<Value>> {
        let events = self.ops(&json!([
            {"send": {"type": "thread.list", "submissionId": "list", "includeArchived": true},
             "until": "thread.listed"}
        ]))?;
        Ok(events
            .into_iter()
            .find(|e| e["type"] == "thread.listed")
            .and_then(|e| e["threads"].as_array().cloned())
            .unwrap_or_default())
    }

    /// The current chat's thread summary, once it exists.
    pub fn current_thread(&mut self) -> anyhow::Result<Option<Value>> {
        let since = self.chat_started_ms;
        Ok(self
            .threads()?
            .into_iter()
            .filter(|t| t["meta"]["createdAtMs"].as_u64().is_some_and(|at| at >= since))
            .max_by_key(|t| t["meta"]["createdAtMs"].as_u64()))
    }

    /// The host patterns the extension may reach now (`chrome.permissions.getAll`).
    pub fn granted_origins(&mut self) -> anyhow::Result<Vec<String>> {
        let all = self.browser.cdp.evaluate(&self.driver, "chrome.permissions.getAll()")?;
        Ok(all["origins"]
            .as_array()
            .map(|o| o.iter().filter_map(|o| o.as_str().map(str::to_owned)).collect())
            .unwrap_or_default())
    }

    /// Grants the extension `origin` (`http://shop.x.test:PORT`) from the driver page, inside
    /// a user gesture, as a card's Allow click would.
    pub fn grant(&mut self, origin: &str) -> anyhow::Result<()> {
        let granted = self.browser.cdp.evaluate(
            &self.driver,
            &format!(
                "chrome.permissions.request({{ origins: [{}] }})",
                json!(format!("{origin}/*"))
            ),
        )?;
        anyhow::ensure!(granted == json!(true), "{origin} was not granted: {granted}");
        Ok(())
    }

    /// Opens `url` in a new tab of the panel's window (made the window's active tab when
    /// `active`), waits until it has loaded and attaches to it.
    pub fn open_tab(&mut self, url: &str, active: bool) -> anyhow::Result<WebTab> {
        let script = format!(
            r#"(async () => {{
                const tab = await chrome.tabs.create({{ windowId: {window}, url: {url}, active: {active} }});
                for (let i = 0; i < 1200; i++) {{
                    const t = await chrome.tabs.get(tab.id);
                    if (t.status === "complete" && t.url === {url}) return tab.id;
                    await new Promise((r) => setTimeout(r, 25));
                }}
                throw new Error("the tab did not load");
            }})()"#,
            window = self.window,
            url = json!(url),
        );
        let id = self.browser.cdp.evaluate(&self.driver, &script)?.as_i64().context("tab id")?;
        self.attach_tab(id, url)
    }

    fn attach_tab(&mut self, id: i64, url: &str) -> anyhow::Result<WebTab> {
        let target = self.browser.cdp.wait_for_target("page", DEADLINE, |u| u == url)?;
        let page = self.browser.cdp.attach(&target)?;
        Ok(WebTab { id, page })
    }

    /// Makes `tab` the active tab of its window.
    pub fn activate(&mut self, tab: &WebTab) -> anyhow::Result<()> {
        self.browser.cdp.evaluate(
            &self.driver,
            &format!("chrome.tabs.update({}, {{ active: true }}).then(() => true)", tab.id),
        )?;
        Ok(())
    }

    /// Closes tabs (gone ones are skipped).
    pub fn close_tabs(&mut self, tabs: &[WebTab]) -> anyhow::Result<()> {
        let ids: Vec<i64> = tabs.iter().map(|t| t.id).collect();
        self.browser.cdp.evaluate(
            &self.driver,
            &format!(
                "(async () => {{ for (const id of {ids:?}) {{ try {{ await chrome.tabs.remove(id); }} catch (e) {{}} }} return true; }})()"
            ),
        )?;
        Ok(())
    }

    /// The tab's URL as Chrome reports it.
    pub fn tab_url(&mut self, tab: &WebTab) -> anyhow::Result<String> {
        let url = self
            .browser
            .cdp
            .evaluate(&self.driver, &format!("chrome.tabs.get({}).then((t) => t.url)", tab.id))?;
        Ok(url.as_str().unwrap_or_default().to_owned())
    }

    /// Evaluates `expression` in the tab's page.
    pub fn eval_tab(&mut self, tab: &WebTab, expression: &str) -> anyhow::Result<Value> {
        self.browser.cdp.evaluate(&tab.page, expression)
    }

    /// Waits until `condition` holds in the tab's page.
    pub fn wait_tab(&mut self, tab: &WebTab, condition: &str) -> anyhow::Result<()> {
        self.browser.cdp.wait_until(&tab.page, condition, DEADLINE)
    }

    /// Navigates the tab from inside the page (as a script or a click of the user's would) and
    /// waits until `url` has loaded.
    pub fn navigate_tab(&mut self, tab: &WebTab, url: &str) -> anyhow::Result<()> {
        self.browser.cdp.evaluate(&tab.page, &format!("location.href = {}; true", json!(url)))?;
        self.browser.cdp.wait_until(
            &tab.page,
            &format!("location.href === {} && document.readyState === 'complete'", json!(url)),
            DEADLINE,
        )
    }

    /// Starts a new chat in the panel (the toolbar's "New chat").
    pub fn new_chat(&mut self) -> anyhow::Result<()> {
        let clicked = self.browser.cdp.evaluate(
            &self.panel,
            &format!("(() => {{ const b = {}; b?.click(); return !!b; }})()", sel::NEW_CHAT),
        )?;
        anyhow::ensure!(clicked == json!(true), "no New chat button");
        self.chat_started_ms = crate::executor::now_ms();
        self.turns_sent = 0;
        Ok(())
    }

    /// Types `text` into the composer and presses Enter.
    pub fn send(&mut self, text: &str) -> anyhow::Result<()> {
        let panel = self.panel.clone();
        self.browser.type_into(&panel, sel::COMPOSER, text)?;
        self.browser.press(&panel, "Enter", &[])?;
        self.turns_sent += 1;
        Ok(())
    }

    /// The pending approval card, if one shows.
    pub fn card(&mut self) -> anyhow::Result<Option<Card>> {
        Ok(Card::from_json(&self.browser.cdp.evaluate(&self.panel, sel::CARD)?))
    }

    /// Clicks the card's button for `decision` with the mouse, opening the card's menu first
    /// when the choice is in it.
    pub fn click_decision(&mut self, decision: Decision) -> anyhow::Result<()> {
        let button = sel::decision_button(decision.data());
        let mut at = self.browser.cdp.evaluate(&self.panel, &sel::centre_of(&button))?;
        if at == json!("hidden") {
            self.click_at(sel::CARD_MENU)?;
            let until = Instant::now() + CARD_DEADLINE;
            while at == json!("hidden") && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(20));
                at = self.browser.cdp.evaluate(&self.panel, &sel::centre_of(&button))?;
            }
        }
        let (Some(x), Some(y)) = (at[0].as_f64(), at[1].as_f64()) else {
            bail!("the card has no {decision:?} button ({at})");
        };
        self.mouse_click(x, y)
    }

    /// Clicks the centre of the panel's element `selector` with the mouse.
    pub fn click_at(&mut self, selector: &str) -> anyhow::Result<()> {
        let at = self.browser.cdp.evaluate(&self.panel, &sel::centre_of(selector))?;
        let (Some(x), Some(y)) = (at[0].as_f64(), at[1].as_f64()) else {
            bail!("no visible {selector} to click ({at})");
        };
        self.mouse_click(x, y)
    }

    fn mouse_click(&mut self, x: f64, y: f64) -> anyhow::Result<()> {
        for kind in ["mousePressed", "mouseReleased"] {
            self.browser.cdp.call_in(
                &self.panel.session_id,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )?;
        }
        Ok(())
    }

    /// Whether the card offers `decision` (on the card or in its menu).
    pub fn offers(&mut self, decision: Decision) -> anyhow::Result<bool> {
        let button = sel::decision_button(decision.data());
        let at = self.browser.cdp.evaluate(&self.panel, &sel::centre_of(&button))?;
        Ok(!at.is_null())
    }

    /// Sends `text` and plays the turn to its end: `hooks.poll` runs between looks at the
    /// panel, and every approval card is shown to `hooks.answer` (which may change the world
    /// first, a navigation say) and answered by clicking what it returns. Returns the cards with
    /// their answers, in order.
    pub fn run_turn(
        &mut self,
        text: &str,
        hooks: &mut dyn TurnHooks,
    ) -> anyhow::Result<Vec<(Card, Decision)>> {
        self.send(text)?;
        let turn = self.turns_sent;
        let deadline = Instant::now() + TURN_DEADLINE;
        let mut cards = Vec::new();
        loop {
            hooks.poll(self)?;
            if let Some(card) = self.card()? {
                let decision = hooks.answer(self, &card)?;
                self.click_decision(decision)?;
                self.wait_card_gone(&card, decision)?;
                cards.push((card, decision));
                continue;
            }
            if let Some(thread) = self.current_thread()?
                && thread["meta"]["stats"]["turns"].as_u64().is_some_and(|n| n >= turn)
                && thread["running"] == false
                && thread["pendingApprovals"] == 0
            {
                return Ok(cards);
            }
            if Instant::now() > deadline {
                bail!(
                    "turn {turn} did not end within {TURN_DEADLINE:?}; cards so far: {cards:#?}\n\
                     panel:\n{}",
                    self.panel_text()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Ends whatever the current chat still has going: a card is cancelled, a running turn
    /// stopped. For cleaning up after a scenario that failed half way.
    pub fn settle(&mut self) -> anyhow::Result<()> {
        let until = Instant::now() + DEADLINE;
        while Instant::now() < until {
            if self.card()?.is_some() {
                self.click_decision(Decision::Cancel)?;
            }
            let running = self.current_thread()?.is_some_and(|t| {
                t["running"] == true || t["pendingApprovals"].as_u64().is_some_and(|n| n > 0)
            });
            if !running {
                return Ok(());
            }
            self.browser.cdp.evaluate(
                &self.panel,
                "document.querySelector('.composer .stop')?.click(); true",
            )?;
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!("the chat did not settle:\n{}", self.panel_text())
    }

    /// Waits until the answered card is gone or another one shows; fails when it stays (the
    /// engine refused the answer, or the button did nothing).
    fn wait_card_gone(&mut self, answered: &Card, decision: Decision) -> anyhow::Result<()> {
        let until = Instant::now() + CARD_DEADLINE;
        while Instant::now() < until {
            match self.card()? {
                Some(card) if card == *answered => {}
                _ => return Ok(()),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bail!(
            "the card stayed after {decision:?} was clicked: {answered:#?}\n{}",
            self.panel_text()
        )
    }

    /// Kills the service worker and waits until the panel has woken a new one and reconnected.
    pub fn restart_worker(&mut self) -> anyhow::Result<()> {
        let origin = self.browser.extension_origin.clone();
        let workers = |cdp: &mut panelot_testkit::cdp::Cdp| -> anyhow::Result<Vec<String>> {
            Ok(cdp
                .targets("service_worker")?
                .iter()
                .filter(|t| t["url"].as_str().is_some_and(|u| u.starts_with(&origin)))
                .filter_map(|t| t["targetId"].as_str().map(str::to_owned))
                .collect())
        };
        let old = workers(&mut self.browser.cdp)?;
        self.browser.kill_service_worker()?;
        // The panel reconnects on its own; its next port starts a new worker.
        let until = Instant::now() + DEADLINE;
        while workers(&mut self.browser.cdp)?.iter().all(|id| old.contains(id)) {
            if Instant::now() > until {
                bail!("no new service worker within {DEADLINE:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let panel = self.panel.clone();
        self.browser.cdp.wait_until(&panel, sel::READY, DEADLINE)
    }

    /// The panel's text, for failure messages.
    pub fn panel_text(&mut self) -> String {
        self.browser
            .cdp
            .evaluate(&self.panel, "document.body.innerText")
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .unwrap_or_else(|err| format!("(unreadable: {err:#})"))
    }
}
