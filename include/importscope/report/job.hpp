#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace importscope::report {

/// run.job: where in a distributed job this run was, as the launcher's variables say it (Slurm's
/// SLURM_*, torchrun's RANK/LOCAL_RANK/WORLD_SIZE, Open MPI's OMPI_COMM_WORLD_*, MPICH's and
/// PMIx's PMI_*/PMIX_RANK); every member null where none says it.
struct Job {
    std::optional<std::string> launcher; ///< "slurm", "torchrun", "mpi"
    std::optional<std::string> job_id;   ///< SLURM_JOB_ID, else TORCHELASTIC_RUN_ID
    std::optional<std::string> step_id;  ///< SLURM_STEP_ID
    std::optional<std::string> node;     ///< SLURMD_NODENAME: the node as the scheduler names it
    std::optional<std::int64_t> rank;
    std::optional<std::int64_t> local_rank;
    std::optional<std::int64_t> world_size;

    template <typename Fields, typename Self>
    static void fields(Fields& f, Self& e)
    {
        f.nullable("launcher", e.launcher);
        f.nullable("job_id", e.job_id);
        f.nullable("step_id", e.step_id);
        f.nullable("node", e.node);
        f.nullable("rank", e.rank);
        f.nullable("local_rank", e.local_rank);
        f.nullable("world_size", e.world_size);
    }
};

} // namespace importscope::report
