// RUN-OPTIONS: launch=ggl
// --launch=ggl: launches become hipLaunchKernelGGL on the same lines.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

template <typename T, int N>
__global__ void fill(T* p, T v) { p[blockIdx.x * N + threadIdx.x] = v; }
__global__ void noargs() {}

void run(float* p, int n, cudaStream_t s) {
  // CHECK: void run(float* p, int n, hipStream_t s) {
  fill<float, 64><<<n / 64, 64>>>(p, 1.0f);
  // CHECK: hipLaunchKernelGGL(HIP_KERNEL_NAME(fill<float, 64>), dim3(n / 64), dim3(64), 0, 0, p, 1.0f);
  noargs<<<1, 1, 0, s>>>();
  // CHECK: hipLaunchKernelGGL(noargs, dim3(1), dim3(1), 0, s);
  fill<float, 32><<<dim3(n / 32, 1),
  // CHECK: hipLaunchKernelGGL(HIP_KERNEL_NAME(fill<float, 32>), dim3(dim3(n / 32, 1)),
                    32, 128, s>>>(p,
  // CHECK: dim3(32), 128, s, p,
                                   2.0f);
}
