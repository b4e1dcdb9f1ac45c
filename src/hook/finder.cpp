// The meta-path finder (hooks.hpp): asks the finders after it, wraps the loader of a recorded module
// (loader.hpp), records a namespace package at once, and at each import gives the trackers their look:
// sys.path changes, aliases used as parents, installations, one source under two names, missing builds.

#include "hook/diagnostics.hpp"
#include "hook/installations.hpp"
#include "hook/failed_loads.hpp"
#include "hook/finders_ahead.hpp"
#include "hook/hooks.hpp"
#include "hook/importlib_stats.hpp"
#include "hook/loader.hpp"
#include "hook/source_names.hpp"
#include "hook/sys_path_origins.hpp"

#include "capi/compat.hpp"
#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "capi/types.hpp"
#include "importscope/util/error.hpp"

#include <algorithm>
#include <array>
#include <cassert>

namespace importscope::hook {

using capi::PyRef;

namespace {

HookSettings g_settings;
PyObject* g_finder_type = nullptr; // owned by the _importscope module
PyObject* g_finder = nullptr;      // the installed instance; owned by sys.meta_path and here

/// Calls `finder.find_spec(*args)` without making a bound method (which PathFinder's and the other
/// class-level finders' classmethods would cost on every import). Returns a new reference, None for
/// a finder without find_spec (a legacy finder, which the import system passes over too), or null
/// with an error set.
PyObject* call_find_spec(PyObject* finder, PyObject* const* args, Py_ssize_t nargs)
{
    PyObject* name = capi::interned<"find_spec">();
    if (!name)
        return nullptr;
    std::array<PyObject*, 4> call{finder}; // self, then fullname, path and target
    std::copy(args, args + nargs, call.begin() + 1);
    PyObject* spec = PyObject_VectorcallMethod(name, call.data(), static_cast<std::size_t>(nargs + 1), nullptr);
    if (spec || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return spec;
    // An AttributeError from inside a find_spec is the finder's own failure, as in the import system.
    PyRef raised = PyRef::steal(capi::compat::fetch_exception());
    if (PyObject_HasAttr(finder, name)) {
        capi::compat::restore_exception(raised.release());
        return nullptr;
    }
    Py_RETURN_NONE;
}

/// Asks the finders after ours, in sys.meta_path order, as the import system would have.
/// `meta_path`: sys.meta_path (borrowed). Returns a new reference to the spec, None, or null with
/// an error set; `answered` is the finder that gave the spec (borrowed; null when none did).
PyObject* delegate_find_spec(PyObject* self, PyObject* meta_path, PyObject* const* args, Py_ssize_t nargs,
                             PyObject*& answered)
{
    answered = nullptr;
    if (!meta_path || !PyList_Check(meta_path))
        Py_RETURN_NONE;
    // If the target moved us, only the finders after us are ours to ask; the import system asks
    // the ones before us itself. If we are not listed at all, ask everyone.
    bool past_self = true;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(meta_path); ++i)
        if (PyList_GET_ITEM(meta_path, i) == self) {
            past_self = false;
            break;
        }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(meta_path); ++i) {
        PyRef finder = PyRef::borrow(PyList_GET_ITEM(meta_path, i));
        if (finder.get() == self) {
            past_self = true;
            continue;
        }
        if (!past_self)
            continue;
        PyObject* spec = call_find_spec(finder.get(), args, nargs);
        if (spec && spec != Py_None)
            answered = finder.get(); // sys.meta_path holds it
        if (!spec || spec != Py_None)
            return spec;
        Py_DECREF(spec);
    }
    Py_RETURN_NONE;
}

/// For a --python installation whose binary has built-in modules that our libpython lacks: find
/// a top-level module in the embedded build's own lib-dynload.
PyObject* fallback_find_spec(PyObject* name)
{
    PyObject* finder = path_finder(); // borrowed
    if (!finder)
        Py_RETURN_NONE;
    PyRef directory = PyRef::steal(PyUnicode_DecodeFSDefault(g_settings.fallback_dynload.c_str()));
    PyRef path = directory ? PyRef::steal(PyList_New(1)) : PyRef();
    if (!path)
        return nullptr;
    PyList_SET_ITEM(path.get(), 0, directory.release());
    return PyObject_CallMethod(finder, "find_spec", "OO", name, path.get());
}

bool should_record(PyObject* name, LoaderKind kind)
{
    if (kind == LoaderKind::extension)
        return true; // duplicate detection covers every extension
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(name, &size);
    if (!utf8) {
        PyErr_Clear();
        return false;
    }
    return matches(std::string_view(utf8, static_cast<std::size_t>(size)));
}

/// Loaders without exec_module (the legacy load_module protocol) are left alone. A loader is of one
/// of a handful of classes: a class that has the method is remembered, and its loaders are not
/// asked again.
bool has_exec_module(PyObject* loader)
{
    PyObject* type = PyType_Check(loader) ? loader : reinterpret_cast<PyObject*>(Py_TYPE(loader));
    // Holds Python references: never destroyed, so nothing is released after finalization.
    static auto* with_method = new std::vector<PyRef>; // NOLINT(cppcoreguidelines-owning-memory)
    if (std::any_of(with_method->begin(), with_method->end(), [&](const PyRef& known) { return known.get() == type; }))
        return true;
    PyRef method = PyRef::steal(capi::get_attribute(loader, "exec_module"));
    if (method && with_method->size() < 64 && PyObject_HasAttr(type, capi::interned("exec_module")) == 1)
        with_method->push_back(PyRef::borrow(type));
    PyErr_Clear();
    return static_cast<bool>(method);
}

/// The kind of module `loader` loads: loader_kind(), and source for a loader of another class
/// (pytest's assertion rewriter, a subclass of SourceFileLoader) whose spec has a `.py` file as its
/// location: the file runs as Python code, and can run under two names as any other.
LoaderKind kind_of_spec(PyObject* spec, PyObject* loader)
{
    const LoaderKind kind = loader_kind(loader);
    if (kind != LoaderKind::other)
        return kind;
    PyRef located = PyRef::steal(capi::get_attribute<"has_location">(spec));
    const bool has_location = located && PyObject_IsTrue(located.get()) == 1;
    const bool python_file = has_location && capi::attribute_text(spec, "origin").ends_with(".py");
    PyErr_Clear();
    return python_file ? LoaderKind::source : kind;
}

} // namespace

PyObject* take_spec(PyRef spec, PyObject* name, bool by_path_finder)
{
    PyRef loader = PyRef::steal(capi::get_attribute<"loader">(spec.get()));
    if (!loader || is_loader_wrapper(loader.get())) {
        PyErr_Clear(); // none to look at, or taken already (a finder ahead of ours that asked ours)
        return spec.release();
    }
    // Whatever it records, an alias that an import goes through is seen: it is the cause of the
    // duplicates that follow, and costs a look-up in sys.modules per dotted import. Every top-level
    // name is looked up along sys.path once: a copy that shadows another, or a package directory
    // on sys.path, shows there.
    note_parent_alias(name);
    if (PyUnicode_FindChar(name, '.', 0, PyUnicode_GET_LENGTH(name), 1) == -1)
        // PathFinder's spec over sys.path says where the look-ups along sys.path would find it.
        note_installation(capi::to_utf8(name),
                          by_path_finder ? capi::attribute_text(spec.get(), "origin") : std::string());
    PyErr_Clear();
    if (loader.get() == Py_None) {
        if (should_record(name, LoaderKind::namespace_package))
            record_namespace_package(spec.get(), name);
        return spec.release();
    }
    const LoaderKind kind = kind_of_spec(spec.get(), loader.get());
    bool record = should_record(name, kind);
    if (kind == LoaderKind::source || kind == LoaderKind::bytecode)
        record =
            found_under_another_name(spec.get(), name, loader.get(), kind, record) || record; // the double import trap
    if (record && has_exec_module(loader.get())) {
        if (!wrap_spec_loader(spec.get(), loader.get(), name, kind))
            PyErr_Clear(); // unrecorded is better than a failed import
    }
    return spec.release();
}

namespace {

/// find_spec(fullname, path=None, target=None)
PyObject* finder_find_spec(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)
{
    if (kwnames || nargs < 1 || nargs > 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "find_spec(fullname, path=None, target=None) takes positional arguments");
        return nullptr;
    }
    PyObject* name = args[0];
    capture_importlib_stats();
    note_sys_path_changes();
    PyObject* const meta_path = capi::sys_attribute("meta_path"); // borrowed
    if (finders_ahead(meta_path))
        watch_finders_ahead(meta_path); // importlib.import_module() raises no import audit event
    PyObject* answered = nullptr;       // borrowed
    PyRef spec = PyRef::steal(delegate_find_spec(self, meta_path, args, nargs, answered));
    if (!spec)
        return nullptr;
    if (spec.get() == Py_None && !g_settings.fallback_dynload.empty() && (nargs < 2 || args[1] == Py_None)) {
        spec = PyRef::steal(fallback_find_spec(name));
        if (!spec)
            return nullptr;
    }
    if (spec.get() == Py_None) {
        if (nargs >= 2 && args[1] != Py_None)
            note_missing_build(name, args[1]); // ModuleNotFoundError follows; a build for another ABI?
        PyErr_Clear();
        return spec.release();
    }

    const bool by_path_finder = answered && answered == path_finder() && (nargs < 2 || args[1] == Py_None);
    return take_spec(std::move(spec), name, by_path_finder);
}

PyObject* finder_invalidate_caches(PyObject*, PyObject*)
{
    Py_RETURN_NONE; // the finders we delegate to are on sys.meta_path and get their own call
}

PyMethodDef g_finder_methods[] = {
    {"find_spec", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(finder_find_spec)),
     METH_FASTCALL | METH_KEYWORDS, "Asks the other finders, then wraps the loader of a recorded module."},
    {"invalidate_caches", finder_invalidate_caches, METH_NOARGS, "Nothing to invalidate."},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot g_finder_slots[] = {
    {Py_tp_methods, g_finder_methods},
    {Py_tp_doc, const_cast<char*>("importscope's meta-path finder: records imports, changes none.")},
    {0, nullptr},
};

PyType_Spec g_finder_spec = {"_importscope.Finder", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT, g_finder_slots};

} // namespace

namespace {

/// `_frozen_importlib_external.<name>` (a new reference), or null before importlib's external part
/// is in sys.modules.
PyObject* importlib_external(const char* name)
{
    PyObject* external = PyDict_GetItemString(PyImport_GetModuleDict(), "_frozen_importlib_external"); // borrowed
    PyObject* found = external ? capi::get_attribute(external, name) : nullptr;
    PyErr_Clear();
    return found;
}

} // namespace

PyObject* path_finder()
{
    static PyObject* finder = nullptr;
    if (!finder)
        finder = importlib_external("PathFinder");
    return finder;
}

PyObject* default_create_module()
{
    static PyObject* function = nullptr;
    if (!function) {
        PyRef basics = PyRef::steal(importlib_external("_LoaderBasics"));
        function = basics ? capi::get_attribute(basics.get(), "create_module") : nullptr;
        PyErr_Clear();
    }
    return function;
}

void configure(HookSettings settings)
{
    g_settings = std::move(settings);
    for (const auto& p : g_settings.patterns)
        if (p == "*")
            g_settings.match_all = true;
}

const HookSettings& settings()
{
    return g_settings;
}

bool matches(std::string_view module_name)
{
    if (g_settings.match_all)
        return true;
    for (const auto& pattern : g_settings.patterns)
        if (module_name.find(pattern) != std::string_view::npos)
            return true;
    return false;
}

bool ready_finder_type(PyObject* module)
{
    g_finder_type = reinterpret_cast<PyObject*>(capi::add_type(module, &g_finder_spec, "Finder"));
    return g_finder_type != nullptr;
}

void install_finder()
{
    assert(PyGILState_Check());
    PyRef module = capi::check(PyImport_ImportModule(k_module_name), "importing the hook module");
    PyRef finder_type = capi::check(PyObject_GetAttrString(module.get(), "Finder"), "finding the finder type");
    PyRef finder = capi::check(PyObject_CallNoArgs(finder_type.get()), "creating the finder");
    PyObject* meta_path = capi::sys_attribute("meta_path"); // borrowed
    if (!meta_path || !PyList_Check(meta_path))
        throw Error("sys.meta_path is not a list; cannot install the import finder");
    if (PyList_Insert(meta_path, 0, finder.get()) < 0)
        throw capi::PythonError("installing the import finder");
    g_finder = finder.release();
    record_loads_by_path();
}

PyObject* installed_finder()
{
    return g_finder;
}

bool finder_present()
{
    PyObject* meta_path = capi::sys_attribute("meta_path"); // borrowed
    if (!g_finder || !meta_path || !PyList_Check(meta_path))
        return false;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(meta_path); ++i)
        if (PyList_GET_ITEM(meta_path, i) == g_finder)
            return true;
    return false;
}

void ensure_finder_first()
{
    assert(PyGILState_Check());
    PyObject* meta_path = capi::sys_attribute("meta_path"); // borrowed
    if (!g_finder || !meta_path || !PyList_Check(meta_path))
        return;
    if (PyList_GET_SIZE(meta_path) > 0 && PyList_GET_ITEM(meta_path, 0) == g_finder) {
        watch_finders_ahead_from_now();
        return;
    }
    for (Py_ssize_t i = PyList_GET_SIZE(meta_path) - 1; i >= 0; --i)
        if (PyList_GET_ITEM(meta_path, i) == g_finder && PySequence_DelItem(meta_path, i) < 0)
            throw capi::PythonError("moving the import finder");
    if (PyList_Insert(meta_path, 0, g_finder) < 0)
        throw capi::PythonError("moving the import finder");
    watch_finders_ahead_from_now();
}

} // namespace importscope::hook
