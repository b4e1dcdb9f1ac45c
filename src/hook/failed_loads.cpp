#include "hook/failed_loads.hpp"

#include "hook/journal_writer.hpp"
#include "hook/stack.hpp"

#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"

#include <dirent.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace importscope::hook {

using capi::PyRef;

namespace {

struct FailedLoad {
    int pid = 0; ///< a forked child lets go of its parent's
    std::uint64_t id = 0;
    PyRef exception;
};

/// The failed loads held (under the GIL). Never destroyed: it holds Python references.
std::vector<FailedLoad>& failed_loads()
{
    static auto* loads = new std::vector<FailedLoad>; // NOLINT(cppcoreguidelines-owning-memory): see above
    return *loads;
}

/// The file name endings of the extensions this interpreter loads (_imp.extension_suffixes()).
const std::vector<std::string>& extension_suffixes()
{
    static const std::vector<std::string> suffixes = [] {
        std::vector<std::string> found;
        PyRef imp = PyRef::steal(PyImport_ImportModule("_imp"));
        PyRef list = imp ? PyRef::steal(PyObject_CallMethod(imp.get(), "extension_suffixes", nullptr)) : PyRef();
        if (list && PyList_Check(list.get()))
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list.get()); ++i)
                found.push_back(capi::to_utf8(PyList_GET_ITEM(list.get(), i)));
        PyErr_Clear();
        return found;
    }();
    return suffixes;
}

/// The files of `directory` named `stem` + "." + anything + ".so" that no suffix of this
/// interpreter's ends: `_C.cpython-312-x86_64-linux-gnu.so` when this is 3.11.
void other_builds(const std::string& directory, const std::string& stem, std::vector<std::string>& into)
{
    DIR* dir = ::opendir(directory.c_str());
    if (!dir)
        return;
    const std::vector<std::string>& suffixes = extension_suffixes();
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view file = entry->d_name;
        if (!file.starts_with(stem) || file.size() <= stem.size() + 3 || file[stem.size()] != '.' ||
            !file.ends_with(".so"))
            continue;
        const std::string_view suffix = file.substr(stem.size());
        if (std::find(suffixes.begin(), suffixes.end(), suffix) == suffixes.end())
            into.push_back(directory + "/" + std::string(file));
    }
    ::closedir(dir);
    std::sort(into.begin(), into.end());
}

/// The frame at the head of `exception`'s traceback: the outermost one it has passed through.
std::optional<journal::Frame> outermost_frame(PyObject* exception)
{
    PyRef traceback = PyRef::steal(PyException_GetTraceback(exception));
    if (!traceback)
        return std::nullopt;
    PyRef frame = PyRef::steal(capi::get_attribute(traceback.get(), "tb_frame"));
    PyRef line = PyRef::steal(capi::get_attribute(traceback.get(), "tb_lineno"));
    PyRef code = frame ? PyRef::steal(capi::get_attribute(frame.get(), "f_code")) : PyRef();
    PyRef globals = frame ? PyRef::steal(capi::get_attribute(frame.get(), "f_globals")) : PyRef();
    if (!code) {
        PyErr_Clear();
        return std::nullopt;
    }
    journal::Frame out;
    out.file = capi::attribute_text(code.get(), "co_filename");
    out.function = capi::attribute_text(code.get(), "co_name");
    out.line = line && PyLong_Check(line.get()) ? static_cast<int>(PyLong_AsLong(line.get())) : 0;
    if (globals && PyDict_Check(globals.get()))
        if (PyObject* name = PyDict_GetItemString(globals.get(), "__name__"); name && PyUnicode_Check(name))
            out.module = capi::to_utf8(name);
    PyErr_Clear();
    return out;
}

} // namespace

void note_missing_build(PyObject* name, PyObject* search_path)
{
    if (!PyList_Check(search_path))
        return;
    const std::string full_name = capi::to_utf8(name);
    const std::size_t dot = full_name.rfind('.');
    if (dot == std::string::npos)
        return; // a top-level name: sys.path is not scanned for it
    journal::NoBuild e;
    const std::string stem = full_name.substr(dot + 1);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(search_path); ++i)
        if (PyUnicode_Check(PyList_GET_ITEM(search_path, i)))
            other_builds(capi::to_utf8(PyList_GET_ITEM(search_path, i)), stem, e.files);
    if (e.files.empty())
        return;
    resolve_failed_loads();
    JournalWriter::instance().stamp(e);
    e.name = full_name;
    e.suffixes = extension_suffixes();
    e.stack = capture_import_stack();
    append_with_stack(std::move(e));
}

void hold_failed_load(std::uint64_t id, PyObject* exception)
{
    failed_loads().push_back({JournalWriter::instance().pid(), id, PyRef::borrow(exception)});
}

void resolve_failed_loads(PyObject* propagating)
{
    std::vector<FailedLoad>& loads = failed_loads();
    if (loads.empty())
        return;
    JournalWriter& journal = JournalWriter::instance();
    std::vector<FailedLoad> kept;
    for (FailedLoad& load : loads) {
        if (load.exception.get() == propagating && load.pid == journal.pid()) {
            kept.push_back(std::move(load));
            continue;
        }
        if (load.pid != journal.pid())
            continue;
        std::optional<journal::Frame> frame = outermost_frame(load.exception.get());
        if (!frame)
            continue;
        journal::Caught e;
        journal.stamp(e);
        e.id = load.id;
        e.frame = std::move(*frame);
        journal.append(std::move(e));
    }
    loads = std::move(kept); // the exceptions let go of here hold their frames and locals no longer
}

} // namespace importscope::hook
