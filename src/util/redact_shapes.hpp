#pragma once

// The value shapes of the secret rules (docs/secrets.md), each a scan of a text that replaces what
// it finds with "<redacted>" in place: redact_text runs them in order, after may_hold_secret said
// that one of them may apply.

#include <string>
#include <string_view>

namespace importscope::redaction {

/// A letter, digit, '_' or '-': what a token, a name or a word of an option is made of.
bool is_token_char(unsigned char c);

/// Whether `rest` starts with a token's known prefix, a JWT's "eyJ", a PEM block or an auth scheme.
bool starts_secret_shape(std::string_view rest);

/// Whether `value` is a JWT: eyJ<header>.<payload>.<signature>, base64url each.
bool is_jwt(std::string_view value);

/// "-----BEGIN ... PRIVATE KEY-----" up to its END line (or the end of the text).
void redact_pem_blocks(std::string& text);
/// "scheme://user:PASSWORD@host" and a token as the user part ("https://ghp_...@github.com").
void redact_url_credentials(std::string& text);
/// "user:PASSWORD@host" without a scheme.
void redact_userinfo(std::string& text);
/// "Bearer CREDENTIAL", "Basic CREDENTIAL" (an Authorization header's value).
void redact_auth_schemes(std::string& text);
/// "password=X", "api_key: X", "\"password\": \"X\"", "'token': 'X'": a pair whose key is a secret name.
void redact_secret_pairs(std::string& text);
/// Tokens of the known prefixes (ghp_, github_pat_, glpat-, xoxb-, AKIA, sk-, hf_...) and JWTs.
void redact_known_tokens(std::string& text);

} // namespace importscope::redaction
