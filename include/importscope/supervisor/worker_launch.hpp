#pragma once

#include "importscope/embed/worker.hpp"
#include "importscope/supervisor/python_runtime.hpp"

namespace importscope::supervisor {

/// The body of the supervisor's child (supervise's child_main). A program that is not Python is
/// executed with the environment that makes its Python descendants trace themselves. A Python
/// target runs in this very process: the runtime's libpython is loaded (RTLD_GLOBAL, as python's
/// own executable has it), then the worker of its minor, whose entry runs the target. Whatever
/// keeps it from starting is written to the start channel. Never returns.
[[noreturn]] void launch_worker(const embed::WorkerPlan& plan, const PythonRuntime& runtime, int start_fd);

} // namespace importscope::supervisor
