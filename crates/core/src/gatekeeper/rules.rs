//! Permission rules and their precedence: the most specific rule (tool pattern plus origin
//! pattern) wins; at equal specificity a user's rule beats an approval's beats a plugin's, then
//! deny beats ask beats allow, then the newest.

use panelot_protocol::Origin;
use panelot_protocol::OriginError;
use panelot_protocol::OriginPattern;

use crate::tools::catalog::ToolCategory;
use crate::tools::catalog::classify;

/// Which tools a rule covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolPattern {
    /// `*`: every tool.
    Any,
    /// One tool by name.
    Exact(String),
    /// `prefix*`: every tool whose name starts with the prefix.
    Prefix(String),
    /// `category:X`: every write tool of a category.
    Category(ToolCategory),
}

/// Why a tool pattern could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolPatternError {
    /// The pattern was empty.
    #[error("empty tool pattern")]
    Empty,
    /// `category:` named no known category.
    #[error("unknown tool category {0:?}")]
    UnknownCategory(String),
    /// A `*` somewhere other than the end.
    #[error("invalid tool pattern {0:?}")]
    Invalid(String),
}

impl ToolPattern {
    /// Parses `*`, `name`, `prefix*` or `category:X`.
    pub fn parse(pattern: &str) -> Result<ToolPattern, ToolPatternError> {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err(ToolPatternError::Empty);
        }
        if pattern == "*" {
            return Ok(ToolPattern::Any);
        }
        if let Some(name) = pattern.strip_prefix("category:") {
            return ToolCategory::parse(name)
                .map(ToolPattern::Category)
                .ok_or_else(|| ToolPatternError::UnknownCategory(name.to_owned()));
        }
        let (head, star) = match pattern.strip_suffix('*') {
            Some(head) => (head, true),
            None => (pattern, false),
        };
        if head.contains('*') {
            return Err(ToolPatternError::Invalid(pattern.to_owned()));
        }
        if star {
            return Ok(ToolPattern::Prefix(head.to_owned()));
        }
        Ok(ToolPattern::Exact(head.to_owned()))
    }

    /// Whether the pattern covers `tool`.
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            ToolPattern::Any => true,
            ToolPattern::Exact(name) => name == tool,
            ToolPattern::Prefix(prefix) => tool.starts_with(prefix.as_str()),
            ToolPattern::Category(category) => classify(tool).category == Some(*category),
        }
    }

    /// How narrowly the pattern targets: higher wins rule precedence.
    pub fn specificity(&self) -> u8 {
        match self {
            ToolPattern::Any => 0,
            ToolPattern::Category(_) => 1,
            ToolPattern::Prefix(_) => 2,
            ToolPattern::Exact(_) => 3,
        }
    }
}

/// What a rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleVerdict {
    /// Run without asking.
    Allow,
    /// Ask, even when a session grant exists.
    Ask,
    /// Refuse without asking.
    Deny,
}

/// Who made a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSource {
    /// Written in settings by the user.
    User,
    /// Persisted from an "accept for site" approval.
    Approval,
    /// Shipped as a plugin default.
    Plugin,
}

/// A permission rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Stable id, named in denial reasons.
    pub id: String,
    /// Which tools.
    pub tool: ToolPattern,
    /// Which origins.
    pub origin: OriginPattern,
    /// What it decides.
    pub verdict: RuleVerdict,
    /// Who made it.
    pub source: RuleSource,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: u64,
}

/// Why a rule could not be built from its written form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The tool pattern is invalid.
    #[error(transparent)]
    Tool(#[from] ToolPatternError),
    /// The origin pattern is invalid.
    #[error(transparent)]
    Origin(#[from] OriginError),
}

impl Rule {
    /// Builds a rule from its written patterns.
    pub fn parse(
        id: &str,
        tool: &str,
        origin: &str,
        verdict: RuleVerdict,
        source: RuleSource,
        created_at_ms: u64,
    ) -> Result<Rule, RuleError> {
        Ok(Rule {
            id: id.to_owned(),
            tool: ToolPattern::parse(tool)?,
            origin: OriginPattern::parse(origin)?,
            verdict,
            source,
            created_at_ms,
        })
    }

    /// Whether the rule covers this tool at this origin.
    pub fn matches(&self, tool: &str, origin: Option<&Origin>) -> bool {
        self.tool.matches(tool) && self.origin.matches(origin)
    }

    /// The precedence key: larger wins. Specificity (tool plus origin), then source (user,
    /// approval, plugin), then restrictiveness (deny, ask, allow), then the newest; the id
    /// breaks exact ties so the outcome never depends on the order rules are stored in.
    fn precedence(&self) -> (u8, u8, u8, u64, &str) {
        let source = match self.source {
            RuleSource::User => 2,
            RuleSource::Approval => 1,
            RuleSource::Plugin => 0,
        };
        let restrictiveness = match self.verdict {
            RuleVerdict::Deny => 2,
            RuleVerdict::Ask => 1,
            RuleVerdict::Allow => 0,
        };
        let specificity = self.tool.specificity() + self.origin.specificity();
        (specificity, source, restrictiveness, self.created_at_ms, self.id.as_str())
    }
}

/// The rule that decides for this tool and origin, if any rule matches.
pub fn winning_rule<'a>(
    rules: &'a [Rule],
    tool: &str,
    origin: Option<&Origin>,
) -> Option<&'a Rule> {
    rules
        .iter()
        .filter(|rule| rule.matches(tool, origin))
        .max_by(|a, b| a.precedence().cmp(&b.precedence()))
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
