// Thrust stays Thrust (rocThrust implements it); only the CUDA runtime around it changes.
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

float total(const thrust::device_vector<float>& v, cudaStream_t s) {
  // CHECK: float total(const thrust::device_vector<float>& v, hipStream_t s) {
  return thrust::reduce(thrust::device, v.begin(), v.end(), 0.0f);
}
// CHECK-REPORT: translated thrust/device_vector.h 2:11
