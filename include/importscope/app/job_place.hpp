#pragma once

// Where in a distributed job a run is: the launcher's variables read once (the report's run.job),
// and the placeholders of -o that give each rank its own report.

#include "importscope/report/document.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace importscope::app {

/// Reads an environment variable: null when unset.
using VariableLookup = std::function<const char*(const char*)>;

/// The job, rank and launcher as the environment says them. An explicit RANK (torchrun's, or one
/// a script sets from its launcher's) comes first, then SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK
/// and PMIX_RANK; the launcher is the one whose variable gave the rank, or Slurm's for a batch
/// script outside any step. A variable that is not a whole number is left out.
report::Job job_of_environment(const VariableLookup& lookup);

/// The same from this process's environment.
report::Job job_of_environment();

/// What a placeholder of -o stands for, for `--help` and error messages.
inline constexpr std::string_view k_output_placeholders =
    "{host} (this machine's short name), {rank} and {local_rank} (0 outside a launcher), {job} (the job id, "
    "\"local\" outside one), {pid} (importscope's own); {{ and }} for a brace";

/// `pattern` with its placeholders replaced: {host}, {rank}, {local_rank}, {job}, {pid}. A value is
/// made fit for a file name ('/' becomes '_'). Throws Error naming an unknown or unclosed one.
std::string expand_output_placeholders(std::string_view pattern, const report::Job& job, const std::string& host,
                                       long pid);

} // namespace importscope::app
