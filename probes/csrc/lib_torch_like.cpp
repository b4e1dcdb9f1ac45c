// The first framework to bind cudaDeviceProp, like torch._C: a global
// py::class_ registers the C++ type in pybind11's process-wide registry,
// keyed by the type's typeid name and shared by every module built with the
// same pybind11 internals version.

#include "device_prop.h"

#include <pybind11/pybind11.h>

#include <cstring>
#include <string>

namespace py = pybind11;

PYBIND11_MODULE(lib_torch_like, m)
{
    py::class_<cudaDeviceProp>(m, "cudaDeviceProp")
        .def_property_readonly("name", [](const cudaDeviceProp& prop) { return std::string(prop.name); })
        .def_readonly("multi_processor_count", &cudaDeviceProp::multiProcessorCount);

    m.def("get_device_properties", []() {
        cudaDeviceProp prop{};
        std::strncpy(prop.name, "torch-like GPU", sizeof(prop.name) - 1);
        prop.multiProcessorCount = 132;
        return prop;
    });
}
