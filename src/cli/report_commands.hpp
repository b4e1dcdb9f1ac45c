#pragma once

// The commands that read reports on the command line: report (render), diff (compare two), merge
// (combine many); their options' declarations (app/report_commands.hpp).

#include "importscope/app/report_commands.hpp"

#include <CLI/App.hpp>

namespace importscope::cli {

using app::DiffOptions;
using app::MergeOptions;
using app::ReportOptions;

CLI::App* setup_report(CLI::App& app, ReportOptions& options);
CLI::App* setup_diff(CLI::App& app, DiffOptions& options);
CLI::App* setup_merge(CLI::App& app, MergeOptions& options);

} // namespace importscope::cli
