#include "importscope/app/job_place.hpp"

#include "importscope/util/error.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <optional>

namespace importscope::app {

namespace {

std::optional<std::string> text_of(const VariableLookup& lookup, const char* name)
{
    const char* value = lookup(name);
    if (value == nullptr || *value == '\0')
        return std::nullopt;
    return std::string(value);
}

std::optional<std::int64_t> number_of(const VariableLookup& lookup, const char* name)
{
    const char* value = name != nullptr ? lookup(name) : nullptr;
    if (value == nullptr)
        return std::nullopt;
    const std::string_view text(value);
    std::int64_t number = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc() || end != text.data() + text.size() || number < 0)
        return std::nullopt;
    return number;
}

/// One launcher's names for the rank, the local rank and the size of the job.
struct RankVariables {
    const char* launcher;
    const char* rank;
    const char* local_rank;
    const char* world_size;
};

constexpr RankVariables k_rank_variables[] = {
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
    {"mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"mpi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    {"mpi", "PMIX_RANK", nullptr, nullptr},
};

std::string fit_for_a_file_name(std::string value)
{
    for (char& c : value)
        if (c == '/' || c == '\0')
            c = '_';
    return value;
}

std::string placeholder_value(std::string_view name, const report::Job& job, const std::string& host, long pid)
{
    if (name == "host")
        return host.substr(0, host.find('.'));
    if (name == "rank")
        return std::to_string(job.rank.value_or(0));
    if (name == "local_rank")
        return std::to_string(job.local_rank.value_or(0));
    if (name == "job")
        return job.job_id.value_or("local");
    if (name == "pid")
        return std::to_string(pid);
    throw Error(fmt::format("-o: unknown placeholder {{{}}}; the placeholders are {}", name, k_output_placeholders));
}

} // namespace

report::Job job_of_environment(const VariableLookup& lookup)
{
    report::Job job;
    for (const RankVariables& names : k_rank_variables) {
        if (auto rank = number_of(lookup, names.rank)) {
            job.launcher = names.launcher;
            job.rank = rank;
            job.local_rank = number_of(lookup, names.local_rank);
            job.world_size = number_of(lookup, names.world_size);
            break;
        }
    }
    job.job_id = text_of(lookup, "SLURM_JOB_ID");
    if (!job.job_id)
        job.job_id = text_of(lookup, "TORCHELASTIC_RUN_ID");
    if (job.job_id && !job.launcher)
        job.launcher = text_of(lookup, "SLURM_JOB_ID") ? "slurm" : "torchrun";
    job.step_id = text_of(lookup, "SLURM_STEP_ID");
    job.node = text_of(lookup, "SLURMD_NODENAME");
    return job;
}

report::Job job_of_environment()
{
    return job_of_environment([](const char* name) { return std::getenv(name); }); // NOLINT(concurrency-mt-unsafe)
}

std::string expand_output_placeholders(std::string_view pattern, const report::Job& job, const std::string& host,
                                       long pid)
{
    std::string out;
    out.reserve(pattern.size());
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
            out += c; // {{ or }}
            ++i;
        } else if (c == '{') {
            const std::size_t close = pattern.find('}', i);
            if (close == std::string_view::npos)
                throw Error(fmt::format("-o: a {{ with no }} in {}; write {{{{ for a brace", pattern));
            out += fit_for_a_file_name(placeholder_value(pattern.substr(i + 1, close - i - 1), job, host, pid));
            i = close;
        } else if (c == '}') {
            throw Error(fmt::format("-o: a }} with no {{ in {}; write }}}} for a brace", pattern));
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace importscope::app
