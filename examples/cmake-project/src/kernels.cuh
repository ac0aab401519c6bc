#pragma once
#include <cuda_runtime.h>

// y[i] = a * x[i] + y[i] on the device, one thread per element.
cudaError_t launch_saxpy(int n, float a, const float* x, float* y, cudaStream_t stream);
