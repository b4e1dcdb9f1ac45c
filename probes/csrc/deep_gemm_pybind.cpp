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

#include <cmath>

namespace py = pybind11;

namespace deep_gemm {

struct Runtime {
    int num_sms = 132;
};

// Aligns a dimension so that its byte size is a multiple of 16 (TMA rule).
int get_tma_aligned_size(int x, int element_size)
{
    const int alignment = 16 / element_size;
    return (x + alignment - 1) / alignment * alignment;
}

// Rounds to the nearest FP4 E2M1 value; returns the 4-bit code (sign in bit 3).
int round_to_e2m1(double value)
{
    static const double magnitudes[] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    const double target = std::fabs(value);
    int best = 0;
    for (int i = 1; i < 8; ++i) {
        if (std::fabs(magnitudes[i] - target) < std::fabs(magnitudes[best] - target)) {
            best = i;
        }
    }
    return (value < 0 ? 8 : 0) | best;
}

} // namespace deep_gemm

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
