#pragma once

#include "importscope/analysis/finding.hpp"
#include "importscope/analysis/model.hpp"

#include <cstddef>
#include <string>
#include <vector>

/// The environment variables a process read, as the report and the summary show them.
namespace importscope::analysis {

/// One variable and the lines that read it, in the order of their first reads.
struct VariableRead {
    std::string name;
    bool set = false;
    std::string value; ///< redacted by the hooks when it looks like a secret
    std::vector<journal::Frame> read_at;
    std::vector<std::uint64_t> read_seq; ///< each read's place in its process's events, as read_at
};

/// A line that read this many variables or more copied the environment (dict(os.environ),
/// {**os.environ}) and asked for no setting in particular.
inline constexpr std::size_t k_bulk_read_variables = 16;

struct BulkRead {
    journal::Frame at;
    std::size_t variables = 0;
};

struct ProcessEnvironmentReads {
    std::vector<VariableRead> variables; ///< read by a line that is no bulk read, in order of first read
    std::vector<BulkRead> bulk;
};

/// What `process` read: each variable with its reading lines, and the lines that copied it all.
ProcessEnvironmentReads environment_reads(const ProcessRecord& process);

/// Gives each error finding `evidence.environment_read`: the variables its process read from the
/// files on the finding's import stacks before its last load, as {name, set, value, file, line,
/// on_import_path (true)}; at most k_reads_per_finding. None when no such read was made.
void attach_environment_reads(std::vector<Finding>& findings, const RunModel& model);

inline constexpr std::size_t k_reads_per_finding = 12;

} // namespace importscope::analysis
