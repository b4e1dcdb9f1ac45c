// Miniature of DeepGEMM's pybind11 extension, vendored by vLLM as
// vllm.third_party.deep_gemm._C.
//
// CPython runs PyInit__C again whenever this file is imported under a new
// module name (e.g. deep_gemm._C after vllm.third_party.deep_gemm._C), while
// dlopen() returns the already-loaded handle, so every static of this .so,
// pybind11's type registry included, is shared by both initializations.
//
// 1. The second init fails in py::class_<Runtime> with
//        ImportError: generic_type: type "Runtime" is already registered!
//    for a global binding and, since the module-local registry is itself a
//    static of this .so, also with py::module_local() (DEEP_GEMM_MODULE_LOCAL).
//
// 2. The process then aborts at exit (SIGABRT, exit status 134) with
//    "free(): invalid pointer", as the real vLLM process did. No extra code is
//    needed: PYBIND11_MODULE keeps its PyModuleDef in a static and re-creates
//    it with placement new on every init (pybind11 2.10), resetting the def's
//    object refcount to 1. The first init had stored the def in CPython's
//    extension cache, which owns a reference to it. When Py_FinalizeEx clears
//    that cache the refcount drops to 0 and CPython "deallocates" the def:
//    free() on static storage inside this .so. glibc's exact wording depends
//    on the bytes before the def in .bss (a -O3 Release build prints "double
//    free or corruption (out)"); it always aborts.

#include <pybind11/pybind11.h>

#include "deep_gemm_core.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_C, m)
{
    using deep_gemm::Runtime;

#ifdef DEEP_GEMM_MODULE_LOCAL
    py::class_<Runtime> runtime_class(m, "Runtime", py::module_local());
#else
    py::class_<Runtime> runtime_class(m, "Runtime");
#endif
    runtime_class.def(py::init<>()).def("get_num_sms", [](const Runtime& self) { return self.num_sms; });

    m.def("get_tma_aligned_size", &deep_gemm::get_tma_aligned_size, py::arg("x"), py::arg("element_size"));
    m.def("round_to_e2m1", &deep_gemm::round_to_e2m1, py::arg("value"));
}
