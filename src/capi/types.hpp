#pragma once

#include <Python.h>

namespace importscope::capi {

/// The type made from `spec`, added to `module` under `name`: the module holds it, and a reference
/// more is kept for good, so that the hooks compare with it (and make instances of it) for the
/// life of the process. Borrowed; null with a Python error set when it cannot be made or added.
inline PyTypeObject* add_type(PyObject* module, PyType_Spec* spec, const char* name)
{
    PyObject* type = PyType_FromSpec(spec);
    if (!type)
        return nullptr;
    Py_INCREF(type); // the one kept for good; PyModule_AddObject takes the other when it succeeds
    if (PyModule_AddObject(module, name, type) < 0) {
        Py_DECREF(type);
        Py_DECREF(type);
        return nullptr;
    }
    return reinterpret_cast<PyTypeObject*>(type);
}

} // namespace importscope::capi
