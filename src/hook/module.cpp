// The _importscope module: built into worker.so for the main process, and an extension module of its
// own (PyInit__importscope) that the bootstrap sitecustomize imports in Python children.

#include "hook/finders_ahead.hpp"
#include "hook/hooks.hpp"
#include "hook/loader.hpp"
#include "hook/process_tracking.hpp"

#include "capi/py_ref.hpp"

namespace importscope::hook {

namespace {

PyMethodDef g_module_methods[] = {
    {"_start_child", start_child, METH_NOARGS,
     "Installs importscope's hooks in a Python child of a traced process (called by the bootstrap)."},
    {"_exit", traced_exit, METH_O, "os._exit that records the process's end first."},
    {"_after_fork_child", after_fork_child, METH_NOARGS, "Gives a forked child a journal of its own."},
    {"_at_exit", at_exit, METH_NOARGS,
     "Records, as the interpreter ends, what only Python can tell: where failed loads' exceptions got to, what "
     "multiprocessing says of the process."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef g_module_def = {
    PyModuleDef_HEAD_INIT,
    k_module_name,
    "importscope's import hooks: a meta-path finder, a loader wrapper and process tracking.",
    -1,
    g_module_methods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

} // namespace

PyObject* init_module()
{
    capi::PyRef module = capi::PyRef::steal(PyModule_Create(&g_module_def));
    if (!module || !ready_finder_type(module.get()) || !ready_loader_type(module.get()) ||
        !ready_finder_ahead_type(module.get()))
        return nullptr;
    return module.release();
}

} // namespace importscope::hook

#ifdef IMPORTSCOPE_HOOK_EXTENSION
/// The same hooks as an extension module, for Python children of the traced process.
PyMODINIT_FUNC PyInit__importscope(void)
{
    return importscope::hook::init_module();
}
#endif
