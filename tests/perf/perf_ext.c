/* A small C extension for the import benchmark; built once per name (PERF_EXT_NAME). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define STRINGIFY2(x) #x
#define STRINGIFY(x) STRINGIFY2(x)
#define CONCAT2(a, b) a##b
#define CONCAT(a, b) CONCAT2(a, b)

static PyObject* value(PyObject* self, PyObject* unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(42);
}

static PyMethodDef methods[] = {
    {"value", value, METH_NOARGS, "The answer."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STRINGIFY(PERF_EXT_NAME), NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC CONCAT(PyInit_, PERF_EXT_NAME)(void)
{
    return PyModule_Create(&module);
}
