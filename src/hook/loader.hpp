#pragma once

// The loader wrapper: a load's begin, outcome, duration and, for an extension, what its init warned
// (init_warnings.hpp); and _imp.create_dynamic and exec_dynamic replaced, so that an extension loaded
// by path, outside sys.meta_path, is recorded the same way (by_path).

#include <Python.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace importscope::hook {

/// The class of loader that loads a module, as the journal's ImportBegin::kind names it.
enum class LoaderKind : std::uint8_t {
    extension,         ///< ExtensionFileLoader
    source,            ///< SourceFileLoader
    bytecode,          ///< SourcelessFileLoader
    namespace_package, ///< NamespaceLoader, or none at all (a namespace package PathFinder found)
    builtin,           ///< BuiltinImporter
    frozen,            ///< FrozenImporter
    zip,               ///< zipimporter
    other,
};

/// "extension", "source", "bytecode", "namespace", "builtin", "frozen", "zip" or "other".
constexpr std::string_view to_string(LoaderKind kind)
{
    switch (kind) {
    case LoaderKind::extension: return "extension";
    case LoaderKind::source: return "source";
    case LoaderKind::bytecode: return "bytecode";
    case LoaderKind::namespace_package: return "namespace";
    case LoaderKind::builtin: return "builtin";
    case LoaderKind::frozen: return "frozen";
    case LoaderKind::zip: return "zip";
    case LoaderKind::other: break;
    }
    return "other";
}

/// Creates the loader-wrapper type; called once from the module's init. Returns false with a
/// Python error set on failure.
bool ready_loader_type(PyObject* module);

/// Replaces spec.loader with a wrapper that records the load (begin, outcome, duration) and then
/// gives the original loader back to the spec and module once the load is done. `kind` is
/// loader_kind(loader), found once by the finder. Returns false with a Python error set on failure.
bool wrap_spec_loader(PyObject* spec, PyObject* loader, PyObject* name, LoaderKind kind);

/// Replaces _imp.create_dynamic and _imp.exec_dynamic with functions that record an extension
/// loaded by path, outside sys.meta_path (importlib.util.module_from_spec on a
/// spec_from_file_location spec), as the finder's wrapper records the others: a begin marked
/// by_path, its outcome, what its init warned. Needs the GIL and the loader type; throws
/// PythonError.
void record_loads_by_path();

/// "module.QualName" of `loader`'s class (of `loader` itself when it is a class), into `out`.
void loader_type_name_into(std::string& out, PyObject* loader);

/// Whether `loader` is a wrapper of ours (a spec taken once already).
bool is_loader_wrapper(PyObject* loader);

/// The kind of `loader`, by its class's name.
LoaderKind loader_kind(PyObject* loader);

/// Records the import of a namespace package whose `spec` PathFinder gave without a loader (the
/// import system makes its NamespaceLoader and its module later, with no code to run): a begin and
/// an end at once, kind "namespace", origin its first directory. Python errors are cleared.
void record_namespace_package(PyObject* spec, PyObject* name);

} // namespace importscope::hook
