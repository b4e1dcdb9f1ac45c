// The C++ side of the DeepGEMM miniature, shared by its pybind11 and nanobind bindings.
#pragma once

#include <cmath>

namespace deep_gemm {

struct Runtime {
    int num_sms = 132;
};

// Aligns a dimension so that its byte size is a multiple of 16 (TMA rule).
inline int get_tma_aligned_size(int x, int element_size)
{
    const int alignment = 16 / element_size;
    return (x + alignment - 1) / alignment * alignment;
}

// Rounds to the nearest FP4 E2M1 value; returns the 4-bit code (sign in bit 3).
inline int round_to_e2m1(double value)
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
