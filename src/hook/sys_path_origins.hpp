#pragma once

/// Where each sys.path entry came from, so that a package directory standing on sys.path is named
/// with whoever put it there: PYTHONPATH, the script's directory, a .pth file, the program.
namespace importscope::hook {

/// Journals sys.path as it is now (after site), each entry with its origin, and remembers it.
/// Needs the GIL; never raises.
void record_sys_path_at_start();

/// Called by the finder at every import: if sys.path holds entries not seen before, journals them
/// with their origin and the stack of this import, which came after they were added. Costs a
/// comparison of sys.path's identity, size and first item when nothing changed.
void note_sys_path_changes();

/// In a forked child: its journal is new and starts with sys.path again.
void forget_sys_path();

} // namespace importscope::hook
