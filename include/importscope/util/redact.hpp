#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace importscope {

inline constexpr const char* k_redacted = "<redacted>";

// The secret rules, and what they leave alone, are in docs/secrets.md.

/// Whether a variable's, an option's or a key's name says it holds a secret, by its words (split at
/// anything but letters and digits, any case): one containing PASSWORD, PASSWD, PASSPHRASE, SECRET,
/// CREDENTIAL or PRIVATE; ending in TOKEN, KEY, PASS or COOKIE; starting with AUTH (not AUTHOR);
/// PAT, JWT; PWD after another word (DB_PWD, not PWD).
bool is_secret_name(std::string_view name);

/// Whether a value is a credential as a whole: a token of a known prefix, a JWT, a PEM block, or
/// a long base64-like string of mixed letters and digits.
bool looks_like_credential(std::string_view value);

/// Whether `text` may hold a secret redact_text finds: one pass, no allocation, for the strings
/// written by the thousand (module names, frames), most of which cannot.
bool may_hold_secret(std::string_view text);

/// Whether `text` is ASCII that JSON copies as it is (no control character, '"' or '\\') and
/// may_hold_secret passes: the same one pass, which stops at the first byte that is not plain.
bool is_plain_and_clear(std::string_view text);

/// The value to put in a report for this variable: itself, or "<redacted>".
std::string redact_variable(std::string_view name, std::string_view value);

/// `text` with every secret of a known shape replaced: tokens, JWTs, PEM private keys, passwords
/// of URLs and of user:password@host, values of secret-named pairs, Bearer and Basic credentials.
std::string redact_text(std::string_view text);

/// A command line with the values of secret-named options (--api-key X, --hf-token=X, --db-pass X),
/// of -p (-pX, -p X), and every secret redact_text finds replaced.
void redact_arguments(std::vector<std::string>& argv);

} // namespace importscope
