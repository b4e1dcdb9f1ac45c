// The DeepGEMM miniature bound with nanobind instead of pybind11 (probes/deepgemm, variant
// deepgemm_nanobind).
//
// Imported under a second module name, this .so's init runs again in the same process (dlopen gives
// back the loaded handle) and binds Runtime a second time. nanobind keeps one type registry per
// process and, unlike pybind11, does not fail: it warns
//     RuntimeWarning: nanobind: type 'Runtime' was already registered!
// and the second module's Runtime is another Python type over the same C++ type, so that objects
// of one are refused where the other is expected. Nothing crashes; importscope must still report it.

#include <nanobind/nanobind.h>

#include "deep_gemm_core.hpp"

namespace nb = nanobind;

NB_MODULE(_C, m)
{
    nb::class_<deep_gemm::Runtime>(m, "Runtime")
        .def(nb::init<>())
        .def("get_num_sms", [](const deep_gemm::Runtime& self) { return self.num_sms; });
    m.def("get_tma_aligned_size", &deep_gemm::get_tma_aligned_size, nb::arg("x"), nb::arg("element_size"));
    m.def("round_to_e2m1", &deep_gemm::round_to_e2m1, nb::arg("value"));
}
