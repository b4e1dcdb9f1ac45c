#pragma once

#include "capi/py_ref.hpp"

#include <stdexcept>
#include <string>

namespace importscope::capi {

/// An exception object described without disturbing the error indicator: type, str() and formatted
/// traceback. Falls back to placeholder text if describing it fails.
struct DescribedException {
    std::string type_name;
    std::string message;
    std::string traceback;
};
DescribedException describe_exception(PyObject* exception);

/// A Python exception fetched once and normalised: its type name, message and formatted traceback.
/// Constructing it clears Python's error indicator; restore() puts the exception back.
class PythonError : public std::runtime_error {
public:
    /// Fetches the current Python error; `context` says what was being done.
    explicit PythonError(const std::string& context);

    const std::string& type_name() const noexcept { return m_type_name; }
    const std::string& message() const noexcept { return m_message; }
    const std::string& traceback() const noexcept { return m_traceback; }

    /// Re-raises the original exception in Python (for C functions that must return NULL).
    void restore();

private:
    struct Fetched;
    static Fetched fetch_current();
    PythonError(const std::string& context, Fetched fetched);

    PyRef m_value;
    std::string m_type_name;
    std::string m_message;
    std::string m_traceback;
};

/// Throws PythonError when `result` is null; returns it owned otherwise.
PyRef check(PyObject* result, const char* context);

/// The str attribute `name` of `object` as UTF-8, or "" when it is missing or not a str (no error
/// is left set).
std::string attribute_text(PyObject* object, const char* name);
/// The same into `out`, whose buffer is used again when it is big enough.
void attribute_text_into(std::string& out, PyObject* object, const char* name);

/// "module.QualName" of a type, or just "QualName" for builtins.
std::string qualified_type_name(PyObject* type);

/// UTF-8 text of a str object; never fails (undecodable characters are backslash-escaped, a
/// non-str is repr()'d). Leaves the error indicator as it found it.
std::string to_utf8(PyObject* object);
/// The same into `out`, whose buffer is used again when it is big enough.
void to_utf8_into(std::string& out, PyObject* object);

} // namespace importscope::capi
