#pragma once

#include <string>
#include <string_view>

namespace importscope {

inline constexpr const char* k_redacted = "<redacted>";

/// Whether an environment variable's name says it holds a secret: it contains TOKEN, KEY, SECRET,
/// PASSWORD, AUTH or CREDENTIAL, in any case.
bool is_secret_name(std::string_view name);

/// Whether a value looks like a credential: an hf_, sk-, ghp_, gho_, glpat-, xox or AKIA token, or a
/// long base64-like string of mixed letters and digits.
bool looks_like_credential(std::string_view value);

/// The value to put in a report for this variable: itself, or "<redacted>".
std::string redact_variable(std::string_view name, std::string_view value);

} // namespace importscope
