#pragma once

#include <Python.h>

/// Which environment variables the target reads, and where: the setting that chose a fallback path
/// (FLASHINFER_MEGA_FUSED_STAGE=0) shows in the report without being known in advance.
namespace importscope::hook {

/// Wraps os.environ's `__getitem__`, which os.getenv, os.environ.get, `in` and subscripts all go
/// through, so that the first read of each variable from each line of code is journalled: its
/// name, whether it was set, its value (redacted when it looks like a secret) and the line. Reads
/// made by os.py and collections.abc for a whole-environment copy (copy(), items(), values(),
/// update()) are not reads of one setting and are left out. Needs the GIL; throws PythonError.
void install_environment_reads();

/// In a forked child: its journal is new, so each read is a first read again.
void forget_environment_reads();

} // namespace importscope::hook
