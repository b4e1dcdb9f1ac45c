#pragma once

// The application's commands that read reports: report (render), diff (compare two), merge
// (combine many).

#include "importscope/util/destination.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace importscope::app {

struct ReportOptions {
    std::string input;
    std::string format = "text";
    std::string output; ///< empty: standard output
};

struct DiffOptions {
    std::string old_report;
    std::string new_report;
    std::string fail_on = "error";
    std::string output;
};

struct MergeOptions {
    std::vector<std::string> inputs;
    std::string output;
};

int render_report_file(const ReportOptions& options);
int diff_report_files(const DiffOptions& options);
int merge_report_files(const MergeOptions& options);

/// Refuses, before anything is read, an output that could not be written or is one of `inputs`
/// (a report, with Replaces::report_only: also an existing file that is not one).
void check_output(const std::string& output, const std::vector<std::filesystem::path>& inputs,
                  Replaces replaces = Replaces::any_file);

/// Writes `text` to `output` atomically, or to standard output when `output` is empty.
void emit(const std::string& output, const std::string& text);

} // namespace importscope::app
