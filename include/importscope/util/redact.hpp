#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace importscope {

inline constexpr const char* k_redacted = "<redacted>";

/// Whether a variable's or an option's name says it holds a secret: it contains TOKEN, KEY,
/// SECRET, PASSWORD, PASSWD, AUTH or CREDENTIAL, or ends in _PWD, in any case.
bool is_secret_name(std::string_view name);

/// Whether a value looks like a credential: an hf_, sk-, ghp_, gho_, glpat-, xox or AKIA token, or a
/// long base64-like string of mixed letters and digits.
bool looks_like_credential(std::string_view value);

/// The value to put in a report for this variable: itself, or "<redacted>".
std::string redact_variable(std::string_view name, std::string_view value);

/// `text` with the credentials in URLs (scheme://user:<redacted>@host) and tokens of the known
/// formats replaced.
std::string redact_text(std::string_view text);

/// A command line with the values of secret-looking options (--api-key X, --hf-token=X,
/// --password X) and every credential redact_text finds replaced.
void redact_arguments(std::vector<std::string>& argv);

} // namespace importscope
