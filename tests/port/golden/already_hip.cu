// Code that is HIP already comes out unchanged.
#include <hip/hip_runtime.h>

__global__ void k(int* out) { out[threadIdx.x] = warpSize; }

void run(int* out) {
  hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, out);
  hipDeviceSynchronize();
}
// CHECK-COUNTS: found=0
