#pragma once

#include <CLI/App.hpp>

#include <string>
#include <vector>

/// Usage errors as one line, with a suggestion for a misspelt word.
namespace importscope::cli {

/// " (did you mean --timeout?)" when one of `candidates` is a likely spelling of `word`, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

/// Every option name of `app` ("-o", "--output", ...).
std::vector<std::string> option_names(const CLI::App& app);

/// The names of `app`'s subcommands.
std::vector<std::string> subcommand_names(const CLI::App& app);

/// The short help for a bare `importscope`: the usage lines and the subcommands.
std::string short_help(const CLI::App& app);

} // namespace importscope::cli
