#pragma once

#include "importscope/report/document.hpp"

#include <string>

namespace importscope::report {

/// The short human summary printed to stderr after a run: how the target ended, what was recorded,
/// each finding with its loads and call sites, and what to do. `color` adds ANSI colours.
std::string render_summary(const Document& report, bool color);

} // namespace importscope::report
