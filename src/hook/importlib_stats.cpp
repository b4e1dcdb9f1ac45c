#include "hook/importlib_stats.hpp"

#include "capi/names.hpp"
#include "capi/py_ref.hpp"

#include <array>
#include <cassert>
#include <utility>
#include <sys/stat.h>

namespace importscope::hook {

using capi::PyRef;

namespace {

/// What the replacement needs of importlib: its module's namespace, and the `_os` (posix) whose
/// lstat and stat it calls while importlib still uses that one; all empty until it is in place.
struct Importlib {
    PyRef globals; ///< `_frozen_importlib_external.__dict__`
    PyRef os;      ///< its `_os` when the replacement went in
    PyRef lstat;
    PyRef stat;
};

/// The one Importlib of the process. Never destroyed: it holds Python objects.
Importlib& importlib()
{
    static auto* parts = new Importlib; // NOLINT(cppcoreguidelines-owning-memory): see above
    return *parts;
}

/// The last stats of files that are not symlinks: the path importlib gave and the stat_result
/// returned, newest at `m_next - 1`. An import's records are written within a few stats of
/// FileFinder's; a handful of slots also covers a package's __init__ and a source loader's
/// second look.
class RecentStats {
public:
    void keep(PyObject* path, PyObject* result)
    {
        m_slots[m_next] = {PyRef::borrow(path), PyRef::borrow(result)};
        m_next = (m_next + 1) % m_slots.size();
    }

    /// The newest result for `path`, borrowed; null when none is kept.
    PyObject* find(PyObject* path) const
    {
        const Py_ssize_t length = PyUnicode_GET_LENGTH(path);
        for (std::size_t i = 1; i <= m_slots.size(); ++i) {
            const Slot& slot = m_slots[(m_next + m_slots.size() - i) % m_slots.size()];
            PyObject* kept = slot.path.get();
            if (kept == path)
                return slot.result.get();
            if (kept && PyUnicode_GET_LENGTH(kept) == length && PyUnicode_Compare(kept, path) == 0)
                return slot.result.get();
        }
        return nullptr;
    }

private:
    struct Slot {
        PyRef path;
        PyRef result;
    };
    std::array<Slot, 8> m_slots;
    std::size_t m_next = 0;
};

RecentStats& recent_stats()
{
    static auto* stats = new RecentStats; // NOLINT(cppcoreguidelines-owning-memory): holds Python objects
    return *stats;
}

/// Field `index` of a stat_result (a struct sequence: st_mode, st_ino, st_dev, ...) as an
/// unsigned number; none when it is not one.
std::optional<unsigned long long> stat_field(PyObject* result, Py_ssize_t index)
{
    if (!PyTuple_Check(result) || PyTuple_GET_SIZE(result) <= index)
        return std::nullopt;
    const unsigned long long value = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(result, index));
    if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        return std::nullopt;
    }
    return value;
}

bool is_symlink(PyObject* result)
{
    const auto mode = stat_field(result, 0);
    return !mode || S_ISLNK(static_cast<mode_t>(*mode));
}

/// `_path_stat(path)`: what importlib's own returns (`_os.stat(path)`), found by an lstat first.
PyObject* path_stat(PyObject*, PyObject* path)
{
    const Importlib& parts = importlib();
    PyObject* name = capi::interned("_os");
    PyObject* os = name ? PyDict_GetItemWithError(parts.globals.get(), name) : nullptr; // borrowed
    if (os != parts.os.get()) {
        // The target gave importlib another _os (a fake file system): importlib's own behaviour.
        if (!os)
            return PyErr_Occurred() ? nullptr : PyObject_CallOneArg(parts.stat.get(), path);
        const PyRef stat = PyRef::steal(capi::get_attribute(os, "stat"));
        return stat ? PyObject_CallOneArg(stat.get(), path) : nullptr;
    }
    PyObject* result = PyObject_CallOneArg(parts.lstat.get(), path);
    if (!result || !is_symlink(result)) {
        if (result && PyUnicode_CheckExact(path))
            recent_stats().keep(path, result);
        return result;
    }
    Py_DECREF(result);
    return PyObject_CallOneArg(parts.stat.get(), path);
}

PyMethodDef g_path_stat = {
    "_path_stat", path_stat, METH_O,
    "importlib's _path_stat (os.stat), which importscope's hooks also read the file's identity from."};

/// Puts the replacement in place; leaves importlib as it was when its parts are not the ones
/// expected. A Python error may be left set.
void install(PyObject* external)
{
    PyObject* globals = PyModule_GetDict(external); // borrowed
    PyObject* os_name = capi::interned("_os");
    PyObject* stat_name = capi::interned("_path_stat");
    if (!globals || !os_name || !stat_name)
        return;
    PyObject* os = PyDict_GetItemWithError(globals, os_name);         // borrowed
    PyObject* original = PyDict_GetItemWithError(globals, stat_name); // borrowed
    if (!os || !original || !PyFunction_Check(original))
        return;
    Importlib parts{PyRef::borrow(globals), PyRef::borrow(os), PyRef::steal(capi::get_attribute(os, "lstat")),
                    PyRef::steal(capi::get_attribute(os, "stat"))};
    PyRef replacement = PyRef::steal(PyCFunction_New(&g_path_stat, nullptr));
    if (!parts.lstat || !parts.stat || !replacement)
        return;
    importlib() = std::move(parts); // before the first call
    if (PyDict_SetItem(globals, stat_name, replacement.get()) < 0)
        importlib() = Importlib{};
}

} // namespace

void capture_importlib_stats()
{
    assert(PyGILState_Check());
    static bool done = false;
    if (done)
        return;
    PyObject* external = PyDict_GetItemString(PyImport_GetModuleDict(), "_frozen_importlib_external"); // borrowed
    // Not there yet, or still running its own first imports: at a later import.
    if (!external || !PyObject_HasAttrString(external, "PathFinder"))
        return;
    done = true;
    install(external);
    PyErr_Clear();
}

std::optional<journal::FileIdentity> identity_importlib_found(PyObject* path)
{
    assert(PyGILState_Check());
    if (!importlib().globals || !path || !PyUnicode_Check(path))
        return std::nullopt;
    PyObject* result = recent_stats().find(path); // borrowed
    if (!result)
        return std::nullopt;
    const auto inode = stat_field(result, 1);
    const auto device = stat_field(result, 2);
    if (!inode || !device)
        return std::nullopt;
    return journal::FileIdentity{*device, *inode};
}

} // namespace importscope::hook
