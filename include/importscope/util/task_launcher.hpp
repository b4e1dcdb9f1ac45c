#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace importscope {

/// A program that has its tasks started by daemons of a cluster (slurmd, MPI's), not as its own
/// children: those tasks are outside the process tree of whoever runs the program.
enum class TaskLauncher {
    srun,   ///< Slurm: slurmd and slurmstepd start the tasks on the allocated nodes
    sbatch, ///< Slurm: slurmd starts the batch script on the first allocated node
    mpirun, ///< MPI (mpirun, mpiexec and their other names): daemons start the ranks on other hosts
};

/// The launcher a file name is (`srun`, `mpiexec.hydra`, ...), or nullopt.
inline std::optional<TaskLauncher> task_launcher_named(std::string_view file_name)
{
    static constexpr std::array<std::pair<std::string_view, TaskLauncher>, 7> k_names{{
        {"srun", TaskLauncher::srun},
        {"sbatch", TaskLauncher::sbatch},
        {"mpirun", TaskLauncher::mpirun},
        {"mpiexec", TaskLauncher::mpirun},
        {"mpiexec.hydra", TaskLauncher::mpirun},
        {"orterun", TaskLauncher::mpirun},
        {"prterun", TaskLauncher::mpirun},
    }};
    for (const auto& [name, launcher] : k_names)
        if (file_name == name)
            return launcher;
    return std::nullopt;
}

} // namespace importscope
