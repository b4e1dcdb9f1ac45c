#pragma once

#include "importscope/analysis/model.hpp"
#include "importscope/analysis/untraced.hpp"

#include <string>
#include <vector>

namespace importscope::analysis {

/// One `untraced` entry per task launcher of the run (ObservedLauncher: the run's own command, or one
/// the supervisor saw running in the tree), whether a traced process started it (its
/// programs) or it is in `observed`: its tasks are started by a cluster's daemons, outside
/// importscope's process tree, and the entry says so and how to trace them instead (importscope run
/// inside each task). A launcher's own helper process (srun forks one, with its argv) and a
/// sighting of a start that a traced process recorded are not entries of their own.
std::vector<UntracedProcess> untraced_launchers(const RunModel& model, const std::vector<ObservedLauncher>& observed);

} // namespace importscope::analysis
