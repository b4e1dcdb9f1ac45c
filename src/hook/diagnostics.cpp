#include "hook/diagnostics.hpp"

#include "hook/alias_lines.hpp"
#include "hook/hooks.hpp"
#include "hook/journal_writer.hpp"
#include "hook/stack.hpp"

#include "capi/compat.hpp"
#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "importscope/journal/pybind11_message.hpp"
#include "importscope/util/clock.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace importscope::hook {

using capi::PyRef;

namespace {

std::set<std::string> g_aliases_seen; // per process image; a fork keeps its parent's
std::set<std::string> g_type_conflicts_seen;
/// The stack that last stored each alias of a package into sys.modules (CPython 3.12 and later),
/// kept until an import goes through it; a fork keeps its parent's.
std::map<std::string, std::vector<journal::Frame>> g_alias_writes;
bool g_alias_writes_watched = false; // CPython 3.12 and later: else the stores are looked for in the code
constexpr std::size_t k_alias_writes_kept = 10'000;

/// The dict watcher's callback on sys.modules: before a key is stored, whether its value is a
/// package whose __name__ is another name (an alias), and if so the stack storing it. Every import
/// stores its module: most return at the first test or the name comparison.
void on_modules_store(PyObject* key, PyObject* value)
{
    if (!PyModule_Check(value) || !PyUnicode_Check(key))
        return;
    PyObject* const name_key = capi::interned<"__name__">();
    PyObject* const path_key = capi::interned<"__path__">();
    PyObject* dict = PyModule_GetDict(value);                                                          // borrowed
    PyObject* name = dict && name_key && path_key ? PyDict_GetItemWithError(dict, name_key) : nullptr; // borrowed
    if (!name || !PyUnicode_Check(name) || PyUnicode_Compare(name, key) == 0 ||
        !PyDict_GetItemWithError(dict, path_key)) {
        PyErr_Clear();
        return;
    }
    if (g_alias_writes.size() < k_alias_writes_kept)
        g_alias_writes[capi::to_utf8(key)] = capture_plain_stack();
    PyErr_Clear();
}

bool is_pybind11_type(PyObject* type)
{
    const std::string_view metaclass = Py_TYPE(type)->tp_name;
    return metaclass.find("pybind11") != std::string_view::npos;
}

} // namespace

std::vector<std::string> stdlib_directories()
{
    std::vector<std::string> found;
    const std::string version = std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);
    const std::string zip = std::to_string(PY_MAJOR_VERSION) + std::to_string(PY_MINOR_VERSION) + ".zip";
    for (const char* prefix : {"prefix", "base_prefix", "exec_prefix", "base_exec_prefix"})
        if (PyObject* value = capi::sys_attribute(prefix); value && PyUnicode_Check(value)) {
            const std::string lib = capi::to_utf8(value) + "/lib/python";
            found.push_back(lib + version);
            found.push_back(lib + version + "/lib-dynload");
            found.push_back(lib + zip);
        }
    PyErr_Clear();
    return found;
}

bool is_stdlib_name(std::string_view module_name)
{
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>()(text); }
    };
    static const std::unordered_set<std::string, Hash, std::equal_to<>> names = [] {
        std::unordered_set<std::string, Hash, std::equal_to<>> found;
        PyObject* stdlib = capi::sys_attribute("stdlib_module_names"); // borrowed; 3.10 and later
        PyRef iterator = stdlib ? PyRef::steal(PyObject_GetIter(stdlib)) : PyRef();
        while (PyRef name = iterator ? PyRef::steal(PyIter_Next(iterator.get())) : PyRef())
            found.insert(capi::to_utf8(name.get()));
        PyErr_Clear();
        return found;
    }();
    return names.find(module_name.substr(0, module_name.find('.'))) != names.end();
}

void note_parent_alias(PyObject* name)
{
    assert(PyGILState_Check());
    const Py_ssize_t dot = PyUnicode_FindChar(name, '.', 0, PyUnicode_GET_LENGTH(name), -1);
    if (dot < 0) {
        PyErr_Clear();
        return;
    }
    PyRef parent = PyRef::steal(PyUnicode_Substring(name, 0, dot));
    if (!parent) {
        PyErr_Clear();
        return;
    }
    PyObject* module = PyDict_GetItemWithError(PyImport_GetModuleDict(), parent.get()); // borrowed
    if (!module || !PyModule_Check(module)) {
        PyErr_Clear();
        return;
    }
    PyRef real_name = PyRef::steal(PyModule_GetNameObject(module));
    if (!real_name) {
        PyErr_Clear();
        return;
    }
    const int same = PyUnicode_Compare(real_name.get(), parent.get());
    if (same == 0 || PyErr_Occurred()) {
        PyErr_Clear();
        return;
    }
    std::string key = capi::to_utf8(parent.get());
    if (!g_aliases_seen.insert(key).second)
        return;
    JournalWriter& journal = JournalWriter::instance();
    journal::AliasSeen e;
    journal.stamp(e);
    e.key = std::move(key);
    e.module_name = capi::to_utf8(real_name.get());
    e.file = capi::attribute_text(module, "__file__");
    if (const auto written = g_alias_writes.find(e.key); written != g_alias_writes.end())
        e.set_by = written->second;
    else if (!g_alias_writes_watched)
        e.set_in_code = alias_lines_in_code(e.key);
    e.stack = capture_import_stack();
    append_with_stack(std::move(e));
}

bool watch_alias_writes()
{
    assert(PyGILState_Check());
    g_alias_writes_watched = capi::compat::watch_dict_stores(PyImport_GetModuleDict(), on_modules_store);
    return g_alias_writes_watched;
}

void note_type_owners(const std::string& error_message)
{
    assert(PyGILState_Check());
    std::optional<journal::Rebinding> rebinding = journal::rebound_type(error_message);
    if (!rebinding || !g_type_conflicts_seen.insert(rebinding->type_name).second)
        return;
    JournalWriter& journal = JournalWriter::instance();
    journal::TypeOwners e;
    journal.stamp(e);
    e.type_name = std::move(rebinding->type_name);

    PyRef modules = PyRef::steal(PyDict_Items(PyImport_GetModuleDict()));
    if (!modules) {
        PyErr_Clear();
        return;
    }
    // Packages re-export their extension's types: report each type object once, by the module
    // that defines it (the one its __module__ names) when that module is loaded.
    std::map<PyObject*, std::pair<PyObject*, PyObject*>> by_type; // type -> (key, module), borrowed
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(modules.get()); ++i) {
        PyObject* item = PyList_GET_ITEM(modules.get(), i); // borrowed
        PyObject* key = PyTuple_GET_ITEM(item, 0);
        PyObject* module = PyTuple_GET_ITEM(item, 1);
        if (!PyModule_Check(module))
            continue;
        PyObject* dict = PyModule_GetDict(module);                                         // borrowed
        PyObject* type = dict ? PyDict_GetItemString(dict, e.type_name.c_str()) : nullptr; // borrowed
        if (!type || !PyType_Check(type))
            continue;
        const bool defines = capi::attribute_text(type, "__module__") == capi::to_utf8(key);
        auto [it, inserted] = by_type.try_emplace(type, key, module);
        if (!inserted && defines)
            it->second = {key, module};
    }
    for (const auto& [type, owner_module] : by_type) {
        const auto [key, module] = owner_module;
        journal::TypeOwner owner;
        owner.module = capi::to_utf8(key);
        owner.file = capi::attribute_text(module, "__file__");
        owner.qualname = capi::qualified_type_name(type);
        owner.pybind11 = is_pybind11_type(type);
        e.owners.push_back(std::move(owner));
    }
    PyErr_Clear();
    journal.append(std::move(e));
}

} // namespace importscope::hook
