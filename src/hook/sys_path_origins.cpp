#include "hook/sys_path_origins.hpp"

#include "hook/diagnostics.hpp"
#include "hook/journal_writer.hpp"
#include "hook/stack.hpp"

#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"

#include <Python.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace importscope::hook {

using capi::PyRef;

namespace {

namespace fs = std::filesystem;

/// What the origins are told by, taken when sys.path is first recorded.
struct PathContext {
    bool started = false;
    std::set<std::string> pythonpath;      ///< PYTHONPATH's entries, absolute
    std::vector<std::string> site_dirs;    ///< site.getsitepackages() and the user's site-packages
    std::vector<std::string> stdlib_roots; ///< stdlib_directories(), resolved
    std::set<std::string> at_start;        ///< sys.path when the hooks were installed
    std::map<std::string, journal::PathEntry> known; ///< every entry journalled so far, as described
    PyObject* last_list = nullptr;         ///< sys.path as last compared (identity only, never dereferenced)
    Py_ssize_t last_size = -1;
    PyObject* last_first = nullptr;
};

PathContext& context()
{
    static PathContext state;
    return state;
}

std::string absolute(const std::string& entry)
{
    std::error_code ec;
    const fs::path path = fs::absolute(entry.empty() ? fs::path(".") : fs::path(entry), ec);
    return ec ? entry : path.lexically_normal().string();
}

/// An entry as the file system resolves it, as weakly_canonical() would: its nearest existing
/// ancestor's realpath() (the entry's own, nearly always), then the rest as written, lexically
/// normal. realpath() rather than weakly_canonical(), whose path object per component cost most
/// of a child's start-up in the hooks.
std::string resolved(const std::string& entry)
{
    std::array<char, PATH_MAX> real{};
    if (::realpath(entry.empty() ? "." : entry.c_str(), real.data()))
        return real.data();
    std::string path = absolute(entry);
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    std::string rest; // the components not there, as written
    for (std::size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/')) {
        rest.insert(0, path, slash, std::string::npos);
        path.resize(slash);
        if (::realpath(path.c_str(), real.data()))
            return real.data() + (std::string_view(real.data()) == "/" ? rest.substr(1) : rest);
    }
    return path + rest;
}

std::vector<std::string> text_list(PyObject* list)
{
    std::vector<std::string> out;
    if (list && PyList_Check(list))
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); ++i)
            if (PyUnicode_Check(PyList_GET_ITEM(list, i)))
                out.push_back(capi::to_utf8(PyList_GET_ITEM(list, i)));
    return out;
}

void learn_context(PathContext& state)
{
    state.started = true;
    if (const char* pythonpath = std::getenv("PYTHONPATH"))
        for (std::string_view rest = pythonpath; !rest.empty();) {
            const std::size_t colon = rest.find(':');
            if (const std::string entry(rest.substr(0, colon)); !entry.empty())
                state.pythonpath.insert(resolved(entry));
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    if (PyObject* site = PyDict_GetItemString(PyImport_GetModuleDict(), "site")) { // borrowed; absent under -S
        PyRef dirs = PyRef::steal(PyObject_CallMethod(site, "getsitepackages", nullptr));
        for (const std::string& dir : text_list(dirs.get()))
            state.site_dirs.push_back(resolved(dir));
        PyRef user = PyRef::steal(PyObject_CallMethod(site, "getusersitepackages", nullptr));
        if (user && PyUnicode_Check(user.get()))
            state.site_dirs.push_back(resolved(capi::to_utf8(user.get())));
    }
    PyErr_Clear();
    for (const std::string& directory : stdlib_directories())
        state.stdlib_roots.push_back(resolved(directory));
}

/// The .pth file in a site directory one of whose lines names `entry`, as site.addpackage reads it.
std::string pth_file_naming(const PathContext& state, const std::string& entry)
{
    for (const std::string& dir : state.site_dirs) {
        std::error_code ec;
        for (const auto& file : fs::directory_iterator(dir, ec)) {
            if (file.path().extension() != ".pth")
                continue;
            std::ifstream in(file.path());
            for (std::string line; std::getline(in, line);) {
                while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
                    line.pop_back();
                if (line.empty() || line.starts_with('#') || line.starts_with("import ") || line.starts_with("import\t"))
                    continue;
                if (resolved((fs::path(dir) / line).string()) == entry)
                    return file.path().string();
            }
        }
    }
    return {};
}

bool under_any(const std::string& path, const std::vector<std::string>& roots)
{
    return std::any_of(roots.begin(), roots.end(),
                       [&](const std::string& root) { return path == root || path.starts_with(root + "/"); });
}

/// sys.path[0] as CPython computes it for the script sys.argv[0] names, or the working directory.
std::string first_entry_origin(const std::string& real)
{
    PyObject* argv = capi::sys_attribute("argv");
    const std::vector<std::string> args = text_list(argv);
    if (!args.empty() && !args[0].empty() && args[0] != "-c" && args[0] != "-m" && args[0] != "-")
        if (fs::path(resolved(args[0])).parent_path().string() == real) // a symlink: its target's directory
            return "script directory";
    if (real == resolved("."))
        return "working directory";
    return {};
}

journal::PathEntry describe_entry(PathContext& state, const std::string& path, Py_ssize_t index, bool starting)
{
    journal::PathEntry out;
    out.path = path;
    const std::string real = resolved(path);
    if (real != path)
        out.realpath = real;
    if (state.pythonpath.count(real))
        out.origin = "PYTHONPATH";
    else if (std::find(state.site_dirs.begin(), state.site_dirs.end(), real) != state.site_dirs.end())
        out.origin = "site-packages";
    else if (under_any(real, state.stdlib_roots) && !under_any(real, state.site_dirs))
        out.origin = "standard library";
    else if (index == 0 && !(out.origin = first_entry_origin(real)).empty())
        ;
    else if (starting || state.at_start.count(path)) {
        out.pth_file = pth_file_naming(state, real);
        out.origin = out.pth_file.empty() ? "start-up" : ".pth file";
    } else
        out.origin = "program";
    return out;
}

void remember(PathContext& state, PyObject* list)
{
    state.last_list = list;
    state.last_size = PyList_GET_SIZE(list);
    state.last_first = state.last_size > 0 ? PyList_GET_ITEM(list, 0) : nullptr;
}

/// The entries of sys.path not journalled yet, described (at the start, every entry: those
/// described before, in a forked child's parent, as they were).
std::vector<journal::PathEntry> new_entries(PathContext& state, PyObject* list, bool starting)
{
    std::vector<journal::PathEntry> entries;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); ++i) {
        PyObject* item = PyList_GET_ITEM(list, i);
        if (!PyUnicode_Check(item))
            continue;
        std::string path = capi::to_utf8(item);
        if (const auto it = state.known.find(path); it != state.known.end()) {
            if (starting)
                entries.push_back(it->second);
            continue;
        }
        if (starting)
            state.at_start.insert(path);
        journal::PathEntry entry = describe_entry(state, path, i, starting);
        state.known.emplace(std::move(path), entry);
        entries.push_back(std::move(entry));
    }
    PyErr_Clear();
    return entries;
}

} // namespace

void record_sys_path_at_start()
{
    PathContext& state = context();
    JournalWriter& journal = JournalWriter::instance();
    PyObject* list = capi::sys_attribute("path");
    if (!journal.is_open() || !list || !PyList_Check(list))
        return;
    if (!state.started)
        learn_context(state);
    journal::SysPathEntries e;
    journal.stamp(e);
    e.entries = new_entries(state, list, true);
    remember(state, list);
    journal.append(e);
}

void note_sys_path_changes()
{
    PathContext& state = context();
    PyObject* list = capi::sys_attribute("path");
    if (!state.started || !list || !PyList_Check(list))
        return;
    const Py_ssize_t size = PyList_GET_SIZE(list);
    if (list == state.last_list && size == state.last_size && (size == 0 || PyList_GET_ITEM(list, 0) == state.last_first))
        return;
    remember(state, list);
    JournalWriter& journal = JournalWriter::instance();
    if (!journal.is_open())
        return;
    journal::SysPathEntries e;
    e.entries = new_entries(state, list, false);
    if (e.entries.empty())
        return;
    journal.stamp(e);
    e.stack = capture_import_stack();
    append_with_stack(e);
}

void forget_sys_path()
{
    if (context().started)
        record_sys_path_at_start(); // the child's journal starts with sys.path, as described in the parent
}

} // namespace importscope::hook
