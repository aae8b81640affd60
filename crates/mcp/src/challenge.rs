//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1): where
//! the protected-resource metadata is and which scope to ask for, the start of MCP
//! authorization ("Authorization" in the MCP specification, 2025-06-18).
//!
//! The header grammar (RFC 9110 §11.6.1) allows several challenges in one value, separated by
//! commas like their parameters: `Basic realm="a", Bearer resource_metadata="…", scope="x y"`.
//! A scheme starts where a token is not followed by `=`.

/// What a `Bearer` challenge says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// `resource_metadata`: the URL of the protected-resource metadata document (RFC 9728).
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the resource needs (space-separated, as sent).
    pub scope: Option<String>,
    /// `error` (`invalid_token`, `insufficient_scope`, ...).
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
    /// `realm`.
    pub realm: Option<String>,
}

/// The `Bearer` challenge among the header's challenges, or `None` when there is none (the
/// server then did not ask for OAuth; only a configured token can help).
pub fn parse_bearer_challenge(header: &str) -> Option<BearerChallenge> {
    let mut lexer = Lexer { rest: header };
    let mut found: Option<BearerChallenge> = None;
    let mut in_bearer = false;
    loop {
        lexer.skip_separators();
        let Some(token) = lexer.token() else { break };
        lexer.skip_spaces();
        if !lexer.eat('=') {
            // A token without `=` starts the next challenge: the Bearer one, if any, is done.
            if in_bearer {
                break;
            }
            in_bearer = token.eq_ignore_ascii_case("bearer");
            if in_bearer {
                found = Some(BearerChallenge::default());
            }
            continue;
        }
        lexer.skip_spaces();
        let value = if lexer.peek() == Some('"') { lexer.quoted() } else { lexer.token() };
        let Some(value) = value else {
            // The `=` padding of another scheme's token68 (`Negotiate abc==`), or garbage:
            // skip to the next comma rather than give up on a Bearer challenge after it.
            lexer.skip_past_comma();
            continue;
        };
        let Some(challenge) = found.as_mut().filter(|_| in_bearer) else { continue };
        let slot = match token.to_ascii_lowercase().as_str() {
            "resource_metadata" => &mut challenge.resource_metadata,
            "scope" => &mut challenge.scope,
            "error" => &mut challenge.error,
            "error_description" => &mut challenge.error_description,
            "realm" => &mut challenge.realm,
            _ => continue,
        };
        // The first occurrence wins; a repeated parameter is malformed anyway.
        slot.get_or_insert(value);
    }
    found
}

struct Lexer<'a> {
    rest: &'a str,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.rest.chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn skip_spaces(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t']);
    }

    fn skip_past_comma(&mut self) {
        self.rest = self.rest.find(',').map_or("", |i| &self.rest[i + 1..]);
    }

    fn skip_separators(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t', ',']);
    }

    /// A token (RFC 9110 tchar, plus `/` and `:` so an unquoted URL reads whole).
    fn token(&mut self) -> Option<String> {
        let end = self
            .rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~/:".contains(c)))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return None;
        }
        let (token, rest) = self.rest.split_at(end);
        self.rest = rest;
        Some(token.to_owned())
    }

    /// A quoted string with `\` escapes; `None` when it never closes.
    fn quoted(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut chars = self.rest.char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = &self.rest[i + 1..];
                    return Some(out);
                }
                '\\' => out.push(chars.next()?.1),
                c => out.push(c),
            }
        }
        None
    }
}

#[cfg(test)]
#[path = "challenge_tests.rs"]
mod tests;
