"""Two different extensions bind the same C++ type globally, like torch and
PaddlePaddle both binding cudaDeviceProp (PaddlePaddle issue 56812).

No module is initialized twice: the second, distinct module fails because
pybind11's type registry is process-wide. The ImportError propagates uncaught.
"""
import lib_torch_like

print("imported lib_torch_like:", lib_torch_like.get_device_properties().name, flush=True)

import lib_paddle_like  # ImportError: generic_type: type "cudaDeviceProp" is already registered!

print("imported lib_paddle_like:", lib_paddle_like.get_device_properties().name, flush=True)
