#pragma once

#include "importscope/embed/worker.hpp"

#include <Python.h>

#include <functional>

namespace importscope::embed {

/// The one owner of the embedded interpreter. Initialization is split as PEP 587 allows: the core
/// (import system with built-in and frozen modules only), then `on_core_ready` (where the hooks go
/// in, before site, .pth files or any target code), then the rest (sys.path, site), then
/// `on_main_ready` (just before the target). run_main() runs the target exactly as Py_RunMain does
/// for `python` and finalizes.
/// Called with a failed start-up status (an error, or an exit that python's options asked for, as
/// with --version) just before the worker ends with it.
using StartupFailureHandler = void (*)(const PyStatus&);
void on_startup_failure(StartupFailureHandler handler);

/// Pre-initializes CPython from python's command line for the target and the environment, as
/// python does first; before anything else asks CPython for memory.
void preinitialize(const WorkerPlan& plan);

class Interpreter {
public:
    Interpreter(const WorkerPlan& plan, const std::function<void()>& on_core_ready,
                const std::function<void()>& on_main_ready);
    ~Interpreter();
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    /// Runs the target and finalizes; returns the exit status python would have.
    int run_main();

private:
    bool m_finalized = false;
};

} // namespace importscope::embed
