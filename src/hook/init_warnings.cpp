#include "hook/init_warnings.hpp"

#include "capi/compat.hpp"
#include "capi/python_error.hpp"

namespace importscope::hook {

using capi::PyRef;

InitWarnings::InitWarnings()
{
    PyRef pending = PyRef::steal(capi::compat::fetch_exception());
    m_warnings = PyRef::steal(PyImport_ImportModule("warnings"));
    PyRef factory = m_warnings ? PyRef::steal(PyObject_GetAttrString(m_warnings.get(), "catch_warnings")) : PyRef();
    PyRef no_args = PyRef::steal(PyTuple_New(0));
    PyRef keywords = PyRef::steal(Py_BuildValue("{s:O}", "record", Py_True));
    if (factory && no_args && keywords)
        m_context = PyRef::steal(PyObject_Call(factory.get(), no_args.get(), keywords.get()));
    if (m_context)
        m_log = PyRef::steal(PyObject_CallMethod(m_context.get(), "__enter__", nullptr));
    if (!m_log || !PyList_Check(m_log.get())) {
        m_context = PyRef(); // not entered: nothing to undo
        m_log = PyRef();
    }
    PyErr_Clear(); // without the warnings module, the init runs as it would
    if (pending)
        capi::compat::restore_exception(pending.release());
}

InitWarnings::~InitWarnings()
{
    std::vector<std::string> ignored;
    finish(ignored);
}

void InitWarnings::finish(std::vector<std::string>& out)
{
    if (!m_context)
        return;
    PyRef pending = PyRef::steal(capi::compat::fetch_exception());
    PyRef exited = PyRef::steal(PyObject_CallMethod(m_context.get(), "__exit__", "OOO", Py_None, Py_None, Py_None));
    m_context = PyRef();
    PyErr_Clear();
    for (Py_ssize_t i = 0; exited && i < PyList_GET_SIZE(m_log.get()); ++i) {
        PyObject* record = PyList_GET_ITEM(m_log.get(), i); // borrowed
        PyRef category = PyRef::steal(PyObject_GetAttrString(record, "category"));
        PyRef message = PyRef::steal(PyObject_GetAttrString(record, "message"));
        PyRef text = message ? PyRef::steal(PyObject_Str(message.get())) : PyRef();
        if (category && text) {
            std::string line = capi::attribute_text(category.get(), "__name__") + ": " + capi::to_utf8(text.get());
            line.erase(line.find_last_not_of(" \n") + 1);
            out.push_back(std::move(line));
        }
        PyErr_Clear();
        // Shown now as it would have been shown then: the filters already chose it.
        PyRef shown = PyRef::steal(PyObject_CallMethod(m_warnings.get(), "_showwarnmsg", "O", record));
        PyErr_Clear();
    }
    m_log = PyRef();
    if (pending)
        capi::compat::restore_exception(pending.release());
}

} // namespace importscope::hook
