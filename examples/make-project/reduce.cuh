#pragma once
#include <cuda_runtime.h>

// Sum of x[0..n) into *out (device pointers); one partial sum per block, then one atomicAdd per block.
cudaError_t launch_sum(const float* x, int n, float* out);
