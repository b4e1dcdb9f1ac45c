#pragma once

// `importscope scan` on the command line: its options' declaration (app::ScanOptions).

#include "importscope/app/scan.hpp"

#include <CLI/App.hpp>

#include <string>
#include <vector>

namespace importscope::cli {

using app::ScanOptions;

/// Declares `scan` and its options on `app`.
CLI::App* setup_scan(CLI::App& app, ScanOptions& options);

} // namespace importscope::cli
