/*
 * Plain C-API build of the same _C module (no pybind11): single-phase init
 * through PyModule_Create with a static PyModuleDef and a static type, like
 * an extension that only hosts a TORCH_LIBRARY-style op registry.
 *
 * Initializing it a second time under another module name succeeds silently:
 * PyType_Ready is a no-op for the already-ready static type, nothing is
 * registered by name, and the static PyModuleDef is never re-created, so the
 * extension cache's references to it stay balanced and exit is clean. Both
 * module objects still share this file's statics (the init counter shows
 * it): the hazard importscope reports even though nothing fails.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

static const int num_sms = 132;
static long init_count = 0;

typedef struct {
    PyObject_HEAD
} RuntimeObject;

static PyObject* runtime_get_num_sms(PyObject* Py_UNUSED(self), PyObject* Py_UNUSED(ignored))
{
    return PyLong_FromLong(num_sms);
}

static PyMethodDef runtime_methods[] = {
    {"get_num_sms", runtime_get_num_sms, METH_NOARGS, "Number of SMs."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject runtime_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "deep_gemm._C.Runtime",
    .tp_basicsize = sizeof(RuntimeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_methods = runtime_methods,
};

/* Aligns a dimension so that its byte size is a multiple of 16 (TMA rule). */
static PyObject* get_tma_aligned_size(PyObject* Py_UNUSED(module), PyObject* args)
{
    int x, element_size;
    if (!PyArg_ParseTuple(args, "ii", &x, &element_size)) {
        return NULL;
    }
    const int alignment = 16 / element_size;
    return PyLong_FromLong((x + alignment - 1) / alignment * alignment);
}

/* Rounds to the nearest FP4 E2M1 value; returns the 4-bit code. */
static PyObject* round_to_e2m1(PyObject* Py_UNUSED(module), PyObject* arg)
{
    static const double magnitudes[] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    const double value = PyFloat_AsDouble(arg);
    if (value == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    const double target = fabs(value);
    int best = 0;
    for (int i = 1; i < 8; ++i) {
        if (fabs(magnitudes[i] - target) < fabs(magnitudes[best] - target)) {
            best = i;
        }
    }
    return PyLong_FromLong((value < 0 ? 8 : 0) | best);
}

static PyObject* get_init_count(PyObject* Py_UNUSED(module), PyObject* Py_UNUSED(ignored))
{
    return PyLong_FromLong(init_count);
}

static PyMethodDef module_methods[] = {
    {"get_tma_aligned_size", get_tma_aligned_size, METH_VARARGS, NULL},
    {"round_to_e2m1", round_to_e2m1, METH_O, NULL},
    {"_init_count", get_init_count, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_C",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__C(void)
{
    ++init_count;
    if (PyType_Ready(&runtime_type) < 0) {
        return NULL;
    }
    PyObject* module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "Runtime", (PyObject*)&runtime_type) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
