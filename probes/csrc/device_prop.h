// Stand-in for CUDA's cudaDeviceProp (cuda_runtime_api.h): one C++ type that
// two unrelated frameworks both bind, as torch (_CudaDeviceProperties) and
// PaddlePaddle (_gpuDeviceProperties) do (PaddlePaddle issue 56812).
#pragma once

struct cudaDeviceProp {
    char name[256];
    int multiProcessorCount;
};
