#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace importscope::report {

/// --redact-paths: in every string of the report, the home directory becomes "~" and the user name
/// "<user>", so that a report attached to a public ticket does not name the person who ran it.
void redact_paths(nlohmann::json& report, const std::string& home, const std::string& user);

} // namespace importscope::report
