// A second, unrelated framework binding the same C++ type, like PaddlePaddle's
// core module. Imported after lib_torch_like, its py::class_ finds
// cudaDeviceProp already in the shared registry and the module init fails with
//     ImportError: generic_type: type "cudaDeviceProp" is already registered!
// py::module_local() would avoid the clash.

#include "device_prop.h"

#include <pybind11/pybind11.h>

#include <cstring>
#include <string>

namespace py = pybind11;

PYBIND11_MODULE(lib_paddle_like, m)
{
    py::class_<cudaDeviceProp>(m, "cudaDeviceProp")
        .def_property_readonly("name", [](const cudaDeviceProp& prop) { return std::string(prop.name); })
        .def_readonly("multi_processor_count", &cudaDeviceProp::multiProcessorCount);

    m.def("get_device_properties", []() {
        cudaDeviceProp prop{};
        std::strncpy(prop.name, "paddle-like GPU", sizeof(prop.name) - 1);
        prop.multiProcessorCount = 108;
        return prop;
    });
}
