#include "hook/stack.hpp"

#include "embed/compat.hpp"
#include "embed/py_ref.hpp"
#include "embed/python_error.hpp"

#include <algorithm>
#include <cassert>
#include <string_view>

namespace importscope::hook {

using embed::PyRef;

namespace {

/// Frames of importlib's frozen bootstrap: present in every import, never the reason for one.
bool is_bootstrap_frame(std::string_view file)
{
    return file.starts_with("<frozen importlib") || file.starts_with("<frozen zipimport");
}

/// importlib's public entry points (import_module, util): skipped only while nothing but import
/// machinery is below them, so the call site is the code that called them.
bool is_importlib_frame(std::string_view file)
{
    return file.find("/importlib/") != std::string_view::npos;
}

/// A str's UTF-8 text without a copy (CPython keeps it with the object); empty for anything else,
/// or for text that is not valid UTF-8 (lone surrogates), which to_utf8() escapes instead.
std::string_view utf8_view(PyObject* text)
{
    if (!text || !PyUnicode_Check(text))
        return {};
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (!utf8) {
        PyErr_Clear();
        return {};
    }
    return {utf8, static_cast<std::size_t>(size)};
}

journal::Frame describe_frame(PyFrameObject* frame, PyCodeObject* code, PyObject* name_key)
{
    journal::Frame out;
    out.file = embed::to_utf8(embed::compat::code_filename(code));
    out.function = embed::to_utf8(embed::compat::code_name(code));
    out.line = PyFrame_GetLineNumber(frame);
    PyRef globals = PyRef::steal(embed::compat::frame_globals(frame));
    if (globals && PyDict_Check(globals.get()) && name_key) {
        PyObject* name = PyDict_GetItemWithError(globals.get(), name_key); // borrowed
        if (name && PyUnicode_Check(name))
            out.module = embed::to_utf8(name);
        PyErr_Clear();
    }
    return out;
}

} // namespace

std::vector<journal::Frame> capture_import_stack(std::size_t max_frames)
{
    assert(PyGILState_Check());
    std::vector<journal::Frame> stack;
    // Most frames of an import are importlib's own: they are recognised by file name alone, before
    // anything else about them is looked up (line numbers cost a walk of the line table).
    PyRef name_key = PyRef::steal(PyUnicode_InternFromString("__name__"));
    if (!name_key)
        PyErr_Clear(); // frames are still described, without their module name
    PyRef frame = PyRef::borrow(reinterpret_cast<PyObject*>(PyEval_GetFrame()));
    bool leading = true;
    while (frame && stack.size() < max_frames) {
        auto* f = reinterpret_cast<PyFrameObject*>(frame.get());
        PyRef code = PyRef::steal(reinterpret_cast<PyObject*>(PyFrame_GetCode(f)));
        auto* code_object = reinterpret_cast<PyCodeObject*>(code.get());
        const std::string_view file = utf8_view(embed::compat::code_filename(code_object));
        const bool skip = is_bootstrap_frame(file) || (leading && is_importlib_frame(file));
        if (!skip) {
            leading = false;
            stack.push_back(describe_frame(f, code_object, name_key.get()));
        }
        frame = PyRef::steal(reinterpret_cast<PyObject*>(PyFrame_GetBack(f)));
    }
    std::reverse(stack.begin(), stack.end()); // as a traceback reads: outermost first
    return stack;
}

} // namespace importscope::hook
