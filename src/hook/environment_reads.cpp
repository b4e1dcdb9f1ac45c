#include "hook/environment_reads.hpp"

#include "hook/journal_writer.hpp"

#include "capi/compat.hpp"
#include "capi/frames.hpp"
#include "capi/names.hpp"
#include "capi/py_ref.hpp"
#include "capi/python_error.hpp"
#include "importscope/util/redact.hpp"

#include <array>
#include <cassert>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace importscope::hook {

using capi::PyRef;

namespace {

/// A value longer than this is cut: a report needs the setting, not a whole PATH of a container.
constexpr std::size_t k_max_value_bytes = 1024;

/// What the wrapper needs, made once per process. Never destroyed: it holds Python references.
struct EnvironmentHook {
    PyRef original_getitem; ///< os._Environ.__getitem__ as os.py defines it
    PyRef os_file;          ///< co_filename of os.py's code ("<frozen os>" when frozen)
    PyRef abc_file;         ///< co_filename of _collections_abc's code
    /// (code object, line, variable) of each read journalled, so that a line reading a variable
    /// in a loop is written once; the code objects are held, so their addresses keep their meaning.
    std::set<std::tuple<PyObject*, int, std::string>> seen;
    std::vector<PyRef> held_code;
    std::set<PyObject*> held_code_set;
};

EnvironmentHook& hook_state()
{
    static auto* state = new EnvironmentHook; // NOLINT(cppcoreguidelines-owning-memory): see above
    return *state;
}

bool same_text(PyObject* a, PyObject* b)
{
    return a == b || (a && b && PyUnicode_Check(a) && PyUnicode_Check(b) && PyUnicode_Compare(a, b) == 0);
}

bool named_one_of(PyCodeObject* code, std::initializer_list<const char*> names)
{
    PyObject* name = capi::compat::code_name(code);
    for (const char* candidate : names)
        if (PyUnicode_CompareWithASCIIString(name, candidate) == 0)
            return true;
    return false;
}

/// The frame that asked for the variable: past os.getenv and the Mapping methods that read one
/// key (get, `in`, setdefault, pop). False for a read that os.py or collections.abc make of every
/// variable (copy(), items(), values(), update(), ==): no line of the target's asked for that one.
bool find_reader(const EnvironmentHook& state, capi::FrameView& reader)
{
    for (capi::FrameWalk walk; walk; walk.next()) {
        const capi::FrameView frame = walk.view();
        PyObject* file = capi::compat::code_filename(frame.code);
        if (same_text(file, state.abc_file.get())) {
            if (!named_one_of(frame.code, {"get", "__contains__", "setdefault", "pop"}))
                return false;
        } else if (same_text(file, state.os_file.get())) {
            if (!named_one_of(frame.code, {"getenv"}))
                return false;
        } else {
            reader = frame;
            return true;
        }
    }
    return false;
}

journal::Frame describe(const capi::FrameView& frame, int line)
{
    journal::Frame out;
    out.file = capi::to_utf8(capi::compat::code_filename(frame.code));
    out.function = capi::to_utf8(capi::compat::code_name(frame.code));
    out.line = line;
    if (frame.globals && PyDict_Check(frame.globals))
        if (PyObject* name = PyDict_GetItemWithError(frame.globals, capi::interned<"__name__">());
            name && PyUnicode_Check(name))
            out.module = capi::to_utf8(name);
    return out;
}

/// Journals the read of `key` (`value`: its value, or null when it is not set) if it is the first
/// from its line. Never raises: the target's read must go on as if nothing had looked.
void note_read(PyObject* key, PyObject* value)
{
    EnvironmentHook& state = hook_state();
    JournalWriter& journal = JournalWriter::instance();
    capi::FrameView reader;
    if (!journal.is_open() || !find_reader(state, reader))
        return;
    const int line = capi::FrameWalk::line(reader);
    PyObject* code = reinterpret_cast<PyObject*>(reader.code);
    std::string name = capi::to_utf8(key);
    if (!state.seen.emplace(code, line, name).second)
        return;
    if (state.held_code_set.insert(code).second)
        state.held_code.push_back(PyRef::borrow(code));
    journal::EnvironmentRead e;
    journal.stamp(e);
    e.set = value != nullptr;
    if (value) {
        std::string text = capi::to_utf8(value);
        if (text.size() > k_max_value_bytes)
            text = text.substr(0, k_max_value_bytes) + "...";
        e.value = redact_variable(name, text);
    }
    e.name = std::move(name);
    e.frame = describe(reader, line);
    journal.append(e);
    PyErr_Clear(); // a name that would not convert leaves its error here, never in the target
}

/// os._Environ.__getitem__(self, key), as os.py does it, and the read journalled.
PyObject* read_variable(PyObject*, PyObject* const* args, Py_ssize_t nargs)
{
    const EnvironmentHook& state = hook_state();
    PyObject* value = PyObject_Vectorcall(state.original_getitem.get(), args, static_cast<std::size_t>(nargs), nullptr);
    if (nargs != 2 || !PyUnicode_Check(args[1]))
        return value;
    if (value) {
        note_read(args[1], value);
    } else if (PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyObject* missing = capi::compat::fetch_exception();
        note_read(args[1], nullptr);
        capi::compat::restore_exception(missing);
    }
    return value;
}

PyMethodDef g_read_variable = {"__getitem__", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(read_variable)),
                               METH_FASTCALL, "os.environ[key], with the read recorded by importscope."};

/// co_filename of `function`'s code: a new reference.
PyRef code_file_of(PyObject* function, const char* what)
{
    PyRef code = capi::check(PyObject_GetAttrString(function, "__code__"), what);
    return capi::check(PyObject_GetAttrString(code.get(), "co_filename"), what);
}

} // namespace

void install_environment_reads()
{
    assert(PyGILState_Check());
    EnvironmentHook& state = hook_state();
    if (state.original_getitem)
        return;
    PyRef os = capi::check(PyImport_ImportModule("os"), "importing os");
    PyRef environ = capi::check(PyObject_GetAttrString(os.get(), "environ"), "finding os.environ");
    PyObject* environ_type = reinterpret_cast<PyObject*>(Py_TYPE(environ.get()));
    PyRef original = capi::check(PyObject_GetAttrString(environ_type, "__getitem__"), "finding os.environ's reader");
    if (!PyFunction_Check(original.get()))
        return; // not os.py's _Environ (a program replaced it): leave it alone
    PyRef abc = capi::check(PyImport_ImportModule("_collections_abc"), "importing _collections_abc");
    PyRef mapping = capi::check(PyObject_GetAttrString(abc.get(), "Mapping"), "finding Mapping");
    PyRef mapping_get = capi::check(PyObject_GetAttrString(mapping.get(), "get"), "finding Mapping.get");
    state.os_file = code_file_of(original.get(), "reading os.py's file name");
    state.abc_file = code_file_of(mapping_get.get(), "reading _collections_abc's file name");
    PyRef function = capi::check(PyCFunction_New(&g_read_variable, nullptr), "making the environment reader");
    PyRef method = capi::check(PyInstanceMethod_New(function.get()), "making the environment reader");
    state.original_getitem = std::move(original);
    if (PyObject_SetAttrString(environ_type, "__getitem__", method.get()) < 0) {
        state.original_getitem = PyRef();
        throw capi::PythonError("wrapping os.environ's reader");
    }
}

void forget_environment_reads()
{
    hook_state().seen.clear();
}

} // namespace importscope::hook
