#include "hook/installations.hpp"

#include "hook/diagnostics.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"

#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cassert>
#include <set>
#include <unordered_set>
#include <vector>

namespace importscope::hook {

using capi::PyRef;

namespace {

std::set<std::string> g_installations_seen; // per process image; a fork keeps its parent's

/// The origin of PathFinder's spec for `name` over `path`, or "".
std::string path_finder_origin(PyObject* name, PyObject* path)
{
    PyObject* find_spec = capi::interned<"find_spec">();
    PyRef spec = PyRef::steal(find_spec ? PyObject_CallMethodObjArgs(path_finder(), find_spec, name, path, nullptr)
                                        : nullptr);
    std::string origin = spec && spec.get() != Py_None ? capi::attribute_text(spec.get(), "origin") : std::string();
    PyErr_Clear();
    return origin;
}

/// The sys.path entries of the standard library: no name looked up for installations lives there,
/// as the standard library's own names are never looked up, and skipping them saves a third of the
/// look-ups.
bool is_stdlib_entry(PyObject* entry)
{
    static const std::unordered_set<std::string> entries = [] {
        const std::vector<std::string> directories = stdlib_directories();
        return std::unordered_set<std::string>(directories.begin(), directories.end());
    }();
    Py_ssize_t size = 0;
    const char* text = PyUnicode_Check(entry) ? PyUnicode_AsUTF8AndSize(entry, &size) : nullptr;
    if (!text) {
        PyErr_Clear();
        return false;
    }
    return entries.count(std::string(text, static_cast<std::size_t>(size))) != 0;
}

/// Whether `finder`, what sys.path_importer_cache holds for an entry (or null), is a FileFinder
/// that can tell from the directory listing it keeps that `name` is not there: no directory of that name and no file of
/// it with one of its suffixes. That is the test FileFinder.find_spec makes itself, and only when
/// its listing is current (the directory's mtime is the one it was read at); on Linux its listing
/// is the case-sensitive one (`_path_cache`, never the relaxed one of Windows and macOS). False
/// whenever it cannot tell, and the full look-up is made.
bool listing_rules_out(PyObject* finder, PyObject* file_finder_type, PyObject* name)
{
    if (!finder || reinterpret_cast<PyObject*>(Py_TYPE(finder)) != file_finder_type)
        return false;
    PyRef path = PyRef::steal(capi::get_attribute(finder, "path"));
    PyRef read_at = PyRef::steal(capi::get_attribute(finder, "_path_mtime"));
    PyRef listing = PyRef::steal(capi::get_attribute(finder, "_path_cache"));
    PyRef loaders = PyRef::steal(capi::get_attribute(finder, "_loaders"));
    const char* directory = path && PyUnicode_Check(path.get()) ? PyUnicode_AsUTF8(path.get()) : nullptr;
    if (!directory || !read_at || !listing || !PyAnySet_CheckExact(listing.get()) || !loaders ||
        !PyList_Check(loaders.get())) {
        PyErr_Clear();
        return false;
    }
    // As FileFinder: the mtime of its path (the working directory when empty) as os.stat gives it
    // in seconds, -1 when it cannot be had.
    struct stat st {};
    const double mtime = ::stat(*directory ? directory : ".", &st) == 0
                             ? static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9
                             : -1.0;
    const double listed_mtime = PyFloat_AsDouble(read_at.get());
    if (PyErr_Occurred() || listed_mtime != mtime) {
        PyErr_Clear();
        return false;
    }
    if (PySet_Contains(listing.get(), name) != 0) {
        PyErr_Clear();
        return false;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(loaders.get()); ++i) {
        PyObject* pair = PyList_GET_ITEM(loaders.get(), i); // (suffix, loader)
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) < 1 || !PyUnicode_Check(PyTuple_GET_ITEM(pair, 0)))
            return false;
        PyRef file_name = PyRef::steal(PyUnicode_Concat(name, PyTuple_GET_ITEM(pair, 0)));
        if (!file_name || PySet_Contains(listing.get(), file_name.get()) != 0) {
            PyErr_Clear();
            return false;
        }
    }
    return true;
}

/// The index in `entries` of the first entry that `origin`, PathFinder's for the top-level module
/// `name`, lies in: `origin` is `<entry>/<name>.<suffix>` or `<entry>/<name>/__init__.<suffix>`
/// (FileFinder joins them so); -1 when no entry is (a relative entry, whose finder works in the
/// directory it resolves to).
Py_ssize_t entry_holding(PyObject* entries, std::string_view origin, std::string_view name)
{
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(entries); ++i) {
        PyObject* entry = PyList_GET_ITEM(entries, i);
        Py_ssize_t size = 0;
        const char* text = PyUnicode_Check(entry) ? PyUnicode_AsUTF8AndSize(entry, &size) : nullptr;
        if (!text) {
            PyErr_Clear();
            continue;
        }
        std::string_view directory(text, static_cast<std::size_t>(size));
        while (directory.ends_with('/'))
            directory.remove_suffix(1);
        if (!origin.starts_with(directory) || origin.size() <= directory.size() + 1 + name.size())
            continue;
        std::string_view rest = origin.substr(directory.size());
        if (rest[0] != '/' || rest.substr(1, name.size()) != name)
            continue;
        rest.remove_prefix(1 + name.size());
        if (rest.starts_with('.') || rest.starts_with("/__init__."))
            return i;
    }
    return -1;
}

/// Where sys.path alone imports the top-level `name` from (PathFinder), and the later entries of
/// sys.path that hold it too, which that one shadows: one lookup per entry, the first that finds it
/// being the one PathFinder over the whole of sys.path would give (a namespace portion has no
/// origin and is passed over, as PathFinder passes it over for a regular package). With
/// `found_origin`, PathFinder's over sys.path a moment ago, the entries before the one holding it
/// found nothing, and that one finds it there: the look-ups start after it.
journal::Installation find_installations(const std::string& name, std::string_view found_origin)
{
    journal::Installation e;
    e.name = name;
    PyObject* external = PyDict_GetItemString(PyImport_GetModuleDict(), "_frozen_importlib_external"); // borrowed
    PyRef file_finder = external ? PyRef::steal(PyObject_GetAttrString(external, "FileFinder")) : PyRef();
    PyRef name_object = PyRef::steal(PyUnicode_FromStringAndSize(name.data(), static_cast<Py_ssize_t>(name.size())));
    if (!path_finder() || !file_finder || !name_object) {
        PyErr_Clear();
        return e;
    }
    PyObject* sys_path = capi::sys_attribute("path"); // borrowed
    if (!sys_path || !PyList_Check(sys_path))
        return e;
    PyRef entries = PyRef::steal(PyList_GetSlice(sys_path, 0, PyList_GET_SIZE(sys_path))); // the target may change it
    PyObject* finders = capi::sys_attribute("path_importer_cache"); // borrowed
    Py_ssize_t first = 0;
    if (const Py_ssize_t holding = entries && !found_origin.empty() ? entry_holding(entries.get(), found_origin, name) : -1;
        holding >= 0) {
        if (!is_stdlib_entry(PyList_GET_ITEM(entries.get(), holding)))
            e.origin = std::string(found_origin);
        first = holding + 1;
    }
    for (Py_ssize_t i = first; entries && i < PyList_GET_SIZE(entries.get()); ++i) {
        PyObject* entry = PyList_GET_ITEM(entries.get(), i);
        if (is_stdlib_entry(entry))
            continue;
        PyObject* finder = finders && PyDict_Check(finders) ? PyDict_GetItemWithError(finders, entry) : nullptr;
        PyErr_Clear(); // an entry that is no key (unhashable) is looked up in full
        if (listing_rules_out(finder, file_finder.get(), name_object.get()))
            continue;
        PyRef one = PyRef::steal(PyList_New(1));
        if (!one)
            break;
        PyList_SET_ITEM(one.get(), 0, PyRef::borrow(entry).release());
        const std::string origin = path_finder_origin(name_object.get(), one.get());
        if (e.origin.empty())
            e.origin = origin;
        else if (!origin.empty() && origin != e.origin &&
                 std::find(e.shadowed.begin(), e.shadowed.end(), origin) == e.shadowed.end())
            e.shadowed.push_back(origin);
    }
    PyErr_Clear();
    return e;
}

} // namespace

void note_installation(const std::string& top_level, std::string_view found_origin)
{
    assert(PyGILState_Check());
    // The standard library's own names are no second installation of anything; sitecustomize is
    // importscope's bootstrap in every Python child, which runs the environment's own after it.
    if (top_level == "sitecustomize" || top_level == "usercustomize" ||
        !g_installations_seen.insert(top_level).second || is_stdlib_name(top_level))
        return;
    journal::Installation e = find_installations(top_level, found_origin);
    e.matched = !settings().match_all && matches(top_level);
    JournalWriter::instance().stamp(e);
    JournalWriter::instance().append(std::move(e));
}

void note_installations(const std::string& module_name)
{
    if (settings().match_all)
        return; // every component of a recorded name is a top-level name the finder looked up
    for (std::size_t start = module_name.find('.') + 1; start != 0 && start < module_name.size();) {
        const std::size_t end = std::min(module_name.find('.', start), module_name.size());
        if (const std::string component = module_name.substr(start, end - start); matches(component))
            note_installation(component);
        start = end + 1;
    }
}

} // namespace importscope::hook
