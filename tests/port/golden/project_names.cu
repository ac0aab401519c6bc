// RUN-NAMES: initCuda=initHip cudaFree=trackedHipFree thrust::cuda=thrust::hip
// Project-specific names from rocport.toml win over the mapping data; qualified names work too.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>
#include <thrust/reduce.h>

float run(float* p, const float* b, const float* e, cudaStream_t s) {
  // CHECK: float run(float* p, const float* b, const float* e, hipStream_t s) {
  initCuda();
  // CHECK: initHip();
  float total = thrust::reduce(thrust::cuda::par.on(s), b, e);
  // CHECK: float total = thrust::reduce(thrust::hip::par.on(s), b, e);
  cudaFree(p);
  // CHECK: trackedHipFree(p);
  return total;
}
// CHECK-REPORT: translated initCuda 9:3
