// <<<...>>> is valid HIP: kept by default, and counted as a translated launch.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

template <typename T, int N>
__global__ void fill(T* p, T v) { p[blockIdx.x * N + threadIdx.x] = v; }

void run(float* p, cudaStream_t s) {
  // CHECK: void run(float* p, hipStream_t s) {
  fill<float, 64><<<dim3(4), dim3(64), 0, s>>>(p, 1.0f);
  // k<<<1, 1>>>(p) in a comment is not a launch
}
// CHECK-REPORT: translated <<<>>> 10:18
// CHECK-COUNTS: found=3 translated=3
