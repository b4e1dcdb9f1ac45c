#pragma once

// `importscope run` on the command line: its options' declaration (app::RunOptions) and the split
// of its words from the target's (split_arguments.cpp).

#include "importscope/app/run.hpp"

#include <CLI/App.hpp>

#include <optional>
#include <string>
#include <vector>

namespace importscope::cli {

using app::RunOptions;

/// Declares `run` and its options on `app`.
CLI::App* setup_run(CLI::App& app, RunOptions& options);

/// The words after `run`: importscope's own (options and the target: SCRIPT, -m MODULE or -c CODE),
/// the COMMAND after `--`, if any, and the target's arguments, which follow the target and are
/// never parsed, as with python.
struct SplitWords {
    std::vector<std::string> own;
    std::optional<std::string> command;
    std::vector<std::string> target_args;
    bool operator==(const SplitWords&) const = default;
};

/// Splits the words after `run`; option arity comes from the `run` subcommand's declarations.
SplitWords split_target_arguments(const CLI::App& run, const std::vector<std::string>& words);

} // namespace importscope::cli
