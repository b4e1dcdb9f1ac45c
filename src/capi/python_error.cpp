#include "capi/python_error.hpp"

#include "capi/names.hpp"

#include "capi/compat.hpp"

#include <fmt/format.h>

namespace importscope::capi {

void to_utf8_into(std::string& out, PyObject* object)
{
    if (!object) {
        out.clear();
        return;
    }
    PyRef text = PyUnicode_Check(object) ? PyRef::borrow(object) : PyRef::steal(PyObject_Repr(object));
    if (text) {
        Py_ssize_t size = 0;
        if (const char* utf8 = PyUnicode_AsUTF8AndSize(text.get(), &size)) {
            out.assign(utf8, static_cast<std::size_t>(size));
            return;
        }
        PyErr_Clear();
        // Lone surrogates (undecodable file names): escape them rather than fail.
        if (PyRef bytes = PyRef::steal(PyUnicode_AsEncodedString(text.get(), "utf-8", "backslashreplace"))) {
            out.assign(PyBytes_AS_STRING(bytes.get()), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.get())));
            return;
        }
    }
    PyErr_Clear();
    out.assign("<unprintable>");
}

std::string to_utf8(PyObject* object)
{
    std::string text;
    to_utf8_into(text, object);
    return text;
}

void attribute_text_into(std::string& out, PyObject* object, const char* name)
{
    PyRef value = PyRef::steal(get_attribute(object, name));
    if (!value || !PyUnicode_Check(value.get())) {
        PyErr_Clear();
        out.clear();
        return;
    }
    to_utf8_into(out, value.get());
}

std::string attribute_text(PyObject* object, const char* name)
{
    std::string text;
    attribute_text_into(text, object, name);
    return text;
}

std::string qualified_type_name(PyObject* type)
{
    PyRef module = PyRef::steal(get_attribute(type, "__module__"));
    PyRef qualname = PyRef::steal(get_attribute(type, "__qualname__"));
    if (!module || !qualname) {
        PyErr_Clear();
        return reinterpret_cast<PyTypeObject*>(type)->tp_name;
    }
    std::string name = to_utf8(qualname.get());
    std::string module_name = PyUnicode_Check(module.get()) ? to_utf8(module.get()) : std::string{};
    if (module_name.empty() || module_name == "builtins")
        return name;
    return module_name + "." + name;
}

namespace {

void append_frames(std::string& out, PyObject* exception)
{
    out += "Traceback (most recent call last):\n";
    PyRef tb = PyRef::steal(PyException_GetTraceback(exception));
    while (tb && tb.get() != Py_None) {
        PyRef frame = PyRef::steal(PyObject_GetAttrString(tb.get(), "tb_frame"));
        PyRef line = PyRef::steal(PyObject_GetAttrString(tb.get(), "tb_lineno"));
        if (!frame || !line)
            break;
        PyRef code =
            PyRef::steal(reinterpret_cast<PyObject*>(PyFrame_GetCode(reinterpret_cast<PyFrameObject*>(frame.get()))));
        auto* code_object = reinterpret_cast<PyCodeObject*>(code.get());
        out += fmt::format("  File \"{}\", line {}, in {}\n", to_utf8(compat::code_filename(code_object)),
                           PyLong_AsLong(line.get()), to_utf8(compat::code_name(code_object)));
        tb = PyRef::steal(PyObject_GetAttrString(tb.get(), "tb_next"));
    }
    PyErr_Clear();
}

void append_exception_line(std::string& out, PyObject* exception)
{
    const std::string type = qualified_type_name(reinterpret_cast<PyObject*>(Py_TYPE(exception)));
    PyRef text = PyRef::steal(PyObject_Str(exception));
    const std::string message = text ? to_utf8(text.get()) : "<str() of the exception failed>";
    PyErr_Clear();
    out += message.empty() ? type + "\n" : fmt::format("{}: {}\n", type, message);
}

/// The traceback as Python prints it, chained exceptions included, but without source lines: it
/// is formatted in C because it runs inside import and excepthook paths, where importing the
/// traceback module would change the interpreter's state (it resets the pending-KeyboardInterrupt
/// flag that makes python exit by SIGINT, for one).
std::string format_traceback(PyObject* exception, int depth = 0)
{
    std::string out;
    if (depth < 8) {
        PyRef cause = PyRef::steal(PyException_GetCause(exception));
        PyRef context = PyRef::steal(PyException_GetContext(exception));
        PyRef suppress_context = PyRef::steal(PyObject_GetAttrString(exception, "__suppress_context__"));
        const bool suppress = suppress_context && PyObject_IsTrue(suppress_context.get()) == 1;
        PyErr_Clear();
        if (cause && cause.get() != Py_None) {
            out += format_traceback(cause.get(), depth + 1);
            out += "\nThe above exception was the direct cause of the following exception:\n\n";
        } else if (context && context.get() != Py_None && !suppress) {
            out += format_traceback(context.get(), depth + 1);
            out += "\nDuring handling of the above exception, another exception occurred:\n\n";
        }
    }
    append_frames(out, exception);
    append_exception_line(out, exception);
    return out;
}

} // namespace

DescribedException describe_exception(PyObject* exception)
{
    // Describing runs Python code; keep whatever error indicator the caller has out of its way.
    PyObject* pending = compat::fetch_exception();
    DescribedException described;
    described.type_name = qualified_type_name(reinterpret_cast<PyObject*>(Py_TYPE(exception)));
    if (PyRef text = PyRef::steal(PyObject_Str(exception)))
        described.message = to_utf8(text.get());
    else {
        PyErr_Clear();
        described.message = "<str() of the exception failed>";
    }
    described.traceback = format_traceback(exception);
    if (pending)
        compat::restore_exception(pending);
    return described;
}

struct PythonError::Fetched {
    PyRef value;
    DescribedException described;
};

PythonError::Fetched PythonError::fetch_current()
{
    PyRef value = PyRef::steal(compat::fetch_exception());
    if (!value)
        return {PyRef(), {"SystemError", "error return without an exception set", ""}};
    DescribedException described = describe_exception(value.get());
    return {std::move(value), std::move(described)};
}

PythonError::PythonError(const std::string& context) : PythonError(context, fetch_current()) {}

PythonError::PythonError(const std::string& context, Fetched fetched)
    : std::runtime_error(fmt::format("{}: {}: {}", context, fetched.described.type_name, fetched.described.message)),
      m_value(std::move(fetched.value)), m_type_name(std::move(fetched.described.type_name)),
      m_message(std::move(fetched.described.message)), m_traceback(std::move(fetched.described.traceback))
{
}

void PythonError::restore()
{
    if (m_value)
        compat::restore_exception(m_value.release());
    else
        PyErr_SetString(PyExc_SystemError, m_message.c_str());
}

PyRef check(PyObject* result, const char* context)
{
    if (!result)
        throw PythonError(context);
    return PyRef::steal(result);
}

} // namespace importscope::capi
