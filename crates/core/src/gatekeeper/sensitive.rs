//! The sensitive-origin denylist: 32 built-in patterns (browser pages and extension stores,
//! payments, banks, brokers, governments) plus the ones the user adds.
//! Writes to a matching origin are denied and no rule can override it.

use panelot_protocol::Origin;
use panelot_protocol::OriginPattern;

/// The built-in patterns. Domain patterns (`*.x`) cover the apex and every subdomain over
/// http and https, so `pay.google.com` is written `*.pay.google.com` to catch both.
pub const BUILTIN_SENSITIVE_ORIGINS: [&str; 32] = [
    // Browser pages and extension stores: installing an extension outranks any site.
    "chrome://*",
    "edge://*",
    "about:*",
    "*.chromewebstore.google.com",
    // The Chrome Web Store's legacy home (`chrome.google.com/webstore`) is path-based, so the
    // whole origin is listed.
    "*.chrome.google.com",
    "*.microsoftedge.microsoft.com",
    // Payments.
    "*.paypal.com",
    "*.stripe.com",
    "*.pay.google.com",
    "*.alipay.com",
    "*.pay.weixin.qq.com",
    "*.unionpay.com",
    "*.95516.com",
    // Banks.
    "*.icbc.com.cn",
    "*.ccb.com",
    "*.abchina.com",
    "*.boc.cn",
    "*.bankcomm.com",
    "*.cmbchina.com",
    "*.chase.com",
    "*.bankofamerica.com",
    "*.wellsfargo.com",
    "*.citi.com",
    "*.hsbc.com",
    // Brokers.
    "*.fidelity.com",
    "*.schwab.com",
    "*.etrade.com",
    "*.futunn.com",
    "*.itiger.com",
    // Government.
    "*.gov",
    "*.gov.cn",
    "*.gov.uk",
];

/// The denylist in force: the built-ins, which cannot be removed, plus the user's patterns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SensitiveOrigins {
    builtin: Vec<OriginPattern>,
    user: Vec<OriginPattern>,
}

impl Default for SensitiveOrigins {
    fn default() -> Self {
        // Every built-in parses (a unit test holds this), so nothing is dropped in practice.
        let builtin = BUILTIN_SENSITIVE_ORIGINS
            .iter()
            .filter_map(|it| OriginPattern::parse(it).ok())
            .collect();
        SensitiveOrigins { builtin, user: Vec::new() }
    }
}

impl SensitiveOrigins {
    /// The built-ins plus the user's patterns.
    pub fn with_user(user: Vec<OriginPattern>) -> SensitiveOrigins {
        SensitiveOrigins { user, ..SensitiveOrigins::default() }
    }

    /// The built-in patterns.
    pub fn builtin(&self) -> &[OriginPattern] {
        &self.builtin
    }

    /// The user's patterns.
    pub fn user(&self) -> &[OriginPattern] {
        &self.user
    }

    /// The first pattern covering `origin`. Originless calls never get here: a site list
    /// says nothing about tools that touch no site.
    pub fn find(&self, origin: &Origin) -> Option<&OriginPattern> {
        self.builtin.iter().chain(&self.user).find(|it| it.matches(Some(origin)))
    }
}
