#pragma once

#include "importscope/journal/event.hpp"

#include <Python.h>

#include <string>

/// The life of a traced process as the journal tells it: its start (its own journal and a process
/// event), the programs it starts, forks (a new journal for the child) and its end (exit(), os._exit()
/// or a fatal signal), recorded from inside the process.
namespace importscope::hook {

/// Starts this process's journal in the configured run directory and records its start. The caller
/// sets `start.start_method` ("main", "spawn", "exec", "fork" or "forkserver") and `start.ppid`, and
/// may set argv and executable (else taken from sys.orig_argv and sys.executable); the rest is
/// filled in here. False when no journal could be created (nothing is recorded then).
bool begin_process(journal::ProcessStart start);

/// Installs what records the process's end and its forks: an on_exit handler, handlers for fatal
/// signals that record and re-raise, an os._exit that records first, and os.register_at_fork.
/// Needs the GIL and the os module; throws PythonError.
void install_process_trackers();

/// Records the process's end now, without allocating (safe in a signal handler and at exit()).
void record_process_end(const char* how, int code) noexcept;

/// `_importscope._start_child()`, called by the bootstrap sitecustomize in a Python child: reads the
/// run's settings from the environment and installs every hook. Does nothing in a process that is
/// already traced (the embedded main process).
PyObject* start_child(PyObject* module, PyObject* unused);

/// `_importscope._exit(status)`: records the end, then _exit(status), as os._exit does.
PyObject* traced_exit(PyObject* module, PyObject* status);

/// `_importscope._at_exit()`: registered with atexit.
PyObject* at_exit(PyObject* module, PyObject* unused);

/// `_importscope._after_fork_child()`: registered with os.register_at_fork.
PyObject* after_fork_child(PyObject* module, PyObject* unused);

} // namespace importscope::hook
