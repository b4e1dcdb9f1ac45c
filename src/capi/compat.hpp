#pragma once

// Every difference between the supported CPython versions (3.10 to 3.13) lives here, but for the
// stack walk (frames.cpp), which reads the interpreter's frames on 3.11 to 3.13 with their
// internal headers.

#include <Python.h>
#include <frameobject.h>

namespace importscope::capi::compat {

/// Takes the exception being raised (normalised, traceback attached) and clears the indicator.
/// Returns a new reference, or null when no exception is set.
inline PyObject* fetch_exception()
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject* type = nullptr;
    PyObject* value = nullptr;
    PyObject* traceback = nullptr;
    PyErr_Fetch(&type, &value, &traceback);
    if (!type)
        return nullptr;
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback && value)
        PyException_SetTraceback(value, traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
    return value;
#endif
}

/// Raises `exception` again; steals the reference.
inline void restore_exception(PyObject* exception)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exception);
#else
    PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(exception));
    Py_INCREF(type);
    PyErr_Restore(type, exception, PyException_GetTraceback(exception));
#endif
}

/// co_filename and co_name of a code object; borrowed references.
inline PyObject* code_filename(PyCodeObject* code)
{
    return code->co_filename;
}
inline PyObject* code_name(PyCodeObject* code)
{
    return code->co_name;
}

/// What a frame's line number is computed from, with its first line and the frame's last
/// instruction: the code object's line table (a bytes object; borrowed).
inline PyObject* code_line_table(PyCodeObject* code)
{
#if PY_VERSION_HEX >= 0x030A0000
    return code->co_linetable;
#else
    return code->co_lnotab;
#endif
}
inline int code_first_line(PyCodeObject* code)
{
    return code->co_firstlineno;
}

/// Imports the stdlib modules that CPython freezes from the installation's files instead (3.11
/// froze some 20 of them, os and site among them; 3.10 freezes only importlib's bootstrap, which
/// never differs from the files of its build).
inline void use_stdlib_files([[maybe_unused]] PyConfig* config)
{
#if PY_VERSION_HEX >= 0x030B0000
    config->use_frozen_modules = 0;
#endif
}

/// What watch_dict_stores() calls before `key` is stored into a watched dict with `value`
/// (borrowed references). It must not raise.
using DictStore = void (*)(PyObject* key, PyObject* value);

/// Calls `store` before every key is added to `dict` or given another value, for the interpreter's
/// lifetime (one watcher per process: a second call replaces the callback and watches `dict` too).
/// False where the version has no dict watchers (before 3.12: nothing short of replacing the dict
/// tells a program that a key was stored) or none can be had; no Python error is left set.
inline bool watch_dict_stores([[maybe_unused]] PyObject* dict, [[maybe_unused]] DictStore store)
{
#if PY_VERSION_HEX >= 0x030C0000
    static DictStore callback = nullptr;
    static int watcher = -1;
    callback = store;
    if (watcher < 0)
        watcher = PyDict_AddWatcher([](PyDict_WatchEvent event, PyObject*, PyObject* key, PyObject* value) {
            if ((event == PyDict_EVENT_ADDED || event == PyDict_EVENT_MODIFIED) && key && value && callback)
                callback(key, value);
            return 0;
        });
    if (watcher < 0 || PyDict_Watch(watcher, dict) < 0) {
        PyErr_Clear();
        return false;
    }
    return true;
#else
    return false;
#endif
}

} // namespace importscope::capi::compat
