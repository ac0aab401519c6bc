// A kernel file that relies on nvcc's implicit cuda_runtime.h: the translation includes
// hip/hip_runtime.h after the leading comments and #pragma once.
#pragma once
// CHECK-INSERTED: #include <hip/hip_runtime.h>

#include <cstdio>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void run(float* x, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
  cudaDeviceSynchronize();
  // CHECK: hipDeviceSynchronize();
}
// CHECK-REPORT: translated <<<>>> 14:8
// CHECK-COUNTS: found=2 translated=2
