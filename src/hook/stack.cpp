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

journal::Frame describe_frame(PyFrameObject* frame)
{
    journal::Frame out;
    PyRef code = PyRef::steal(reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
    auto* code_object = reinterpret_cast<PyCodeObject*>(code.get());
    out.file = embed::to_utf8(embed::compat::code_filename(code_object));
    out.function = embed::to_utf8(embed::compat::code_name(code_object));
    out.line = PyFrame_GetLineNumber(frame);
    PyRef globals = PyRef::steal(embed::compat::frame_globals(frame));
    if (globals && PyDict_Check(globals.get())) {
        PyObject* name = PyDict_GetItemString(globals.get(), "__name__"); // borrowed
        if (name && PyUnicode_Check(name))
            out.module = embed::to_utf8(name);
    }
    return out;
}

} // namespace

std::vector<journal::Frame> capture_import_stack(std::size_t max_frames)
{
    assert(PyGILState_Check());
    std::vector<journal::Frame> stack;
    PyRef frame = PyRef::borrow(reinterpret_cast<PyObject*>(PyEval_GetFrame()));
    bool leading = true;
    while (frame && stack.size() < max_frames) {
        auto* f = reinterpret_cast<PyFrameObject*>(frame.get());
        journal::Frame described = describe_frame(f);
        const bool skip = is_bootstrap_frame(described.file) || (leading && is_importlib_frame(described.file));
        if (!skip) {
            leading = false;
            stack.push_back(std::move(described));
        }
        frame = PyRef::steal(reinterpret_cast<PyObject*>(PyFrame_GetBack(f)));
    }
    std::reverse(stack.begin(), stack.end()); // as a traceback reads: outermost first
    return stack;
}

} // namespace importscope::hook
