#pragma once

#include <Python.h>

/// Finders that the target puts ahead of ours on sys.meta_path once it runs (pytest's assertion
/// rewriter, typeguard's and beartype's import hooks) answer imports before ours is asked: what they
/// find, a test module imported under two names among it, would go unrecorded. The list is never
/// reordered, for code such as `sys.meta_path.insert(0, f) ... sys.meta_path.pop(0)` must take back
/// its own finder: each such finder object gets instead, as its own attribute, a find_spec of ours
/// that calls its find_spec and takes the spec as ours takes the others' (take_spec, hooks.hpp).
namespace importscope::hook {

/// From now on, finders ahead of ours are the target's: called once ours is first on sys.meta_path
/// as the target's code starts (after site and the .pth files, whose finders ours was put ahead of).
void watch_finders_ahead_from_now();

/// Whether `meta_path` has a finder ahead of ours that was not looked at yet: a few pointers
/// compared, on every import. False when ours is not on it (the target removed it), and before
/// watch_finders_ahead_from_now().
bool finders_ahead(PyObject* meta_path);

/// Gives each finder ahead of ours on `meta_path` that was not looked at yet our find_spec. A class
/// or a module (whose attribute every other user of it would see) and an object that takes no
/// attribute are left as they are. Needs the GIL; Python errors are cleared.
void watch_finders_ahead(PyObject* meta_path);

/// Creates the type of our find_spec on a finder ahead (called by the module's init). False with a
/// Python error set.
bool ready_finder_ahead_type(PyObject* module);

} // namespace importscope::hook
