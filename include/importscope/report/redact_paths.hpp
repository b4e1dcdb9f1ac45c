#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace importscope::report {

struct Document;

/// --redact-paths for one string: the home directory becomes "~" and the user name, where it stands
/// as a word, "<user>", so that a report attached to a public ticket does not name who ran it.
class PathRedaction {
public:
    PathRedaction(std::string home, std::string user);
    void apply(std::string& text) const;

private:
    std::string m_home; ///< without trailing slashes; empty when it is "/" or unknown
    std::string m_user;
};

/// --redact-paths on every string of a report tree.
void redact_paths(nlohmann::json& report, const PathRedaction& redaction);

/// Always: the secrets in every string of a report tree (util/redact.hpp: credentials in URLs,
/// tokens of known formats), and in every command line (argv, args, interpreter_options) the
/// values of secret-looking options.
void redact_secrets(nlohmann::json& report);

/// Both on a report document, each string of it as redact_secrets and redact_paths (when `paths`
/// is given) treat it in the report's JSON form: what `run` and `scan` write and print is redacted once.
void redact(Document& report, const PathRedaction* paths);

} // namespace importscope::report
