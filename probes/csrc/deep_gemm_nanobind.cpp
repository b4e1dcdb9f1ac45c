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

#include <cmath>

namespace nb = nanobind;

namespace deep_gemm {

struct Runtime {
    int num_sms = 132;
};

int get_tma_aligned_size(int x, int element_size)
{
    const int alignment = 16 / element_size;
    return (x + alignment - 1) / alignment * alignment;
}

int round_to_e2m1(double value)
{
    static const double magnitudes[] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    const double target = std::fabs(value);
    int best = 0;
    for (int i = 1; i < 8; ++i)
        if (std::fabs(magnitudes[i] - target) < std::fabs(magnitudes[best] - target))
            best = i;
    return (value < 0 ? 8 : 0) | best;
}

} // namespace deep_gemm

NB_MODULE(_C, m)
{
    nb::class_<deep_gemm::Runtime>(m, "Runtime")
        .def(nb::init<>())
        .def("get_num_sms", [](const deep_gemm::Runtime& self) { return self.num_sms; });
    m.def("get_tma_aligned_size", &deep_gemm::get_tma_aligned_size, nb::arg("x"), nb::arg("element_size"));
    m.def("round_to_e2m1", &deep_gemm::round_to_e2m1, nb::arg("value"));
}
