#pragma once

#include "importscope/journal/event.hpp"

#include <Python.h>

#include <optional>

/// The identity of each file an import loads, from importlib's own look at it: FileFinder stats a
/// candidate file before it gives its spec, and a source loader stats it again for its bytecode's
/// freshness, both through `_frozen_importlib_external._path_stat` (which CPython keeps apart "to
/// make it easier to override"). importscope's replacement makes the same call as `lstat()`, or
/// `stat()` for a symlink, and keeps the last few results, so that the record of an import names
/// its file's (st_dev, st_ino) without a system call of its own: the supervisor then neither
/// looks the path up again nor misses a file deleted before it reads the journal. The target sees
/// what `os.stat()` returns; if it replaces importlib's `_os`, importlib's own behaviour comes back.
namespace importscope::hook {

/// Replaces `_path_stat` once `_frozen_importlib_external` is in sys.modules; later calls do
/// nothing. Needs the GIL; never raises.
void capture_importlib_stats();

/// The identity of `path` (a str) as importlib found it lately, when the file is not a symlink:
/// its record may then name its directory's real path as its own. None when importlib has not
/// looked at it among its last few stats. Needs the GIL; never raises.
std::optional<journal::FileIdentity> identity_importlib_found(PyObject* path);

} // namespace importscope::hook
