// Runtime API: memory, copies, streams, events, errors, device properties.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>
#include <cstdio>

int main() {
  float* d = nullptr;
  size_t n = 1024;
  cudaError_t err = cudaMalloc(&d, n * sizeof(float));
  // CHECK: hipError_t err = hipMalloc(&d, n * sizeof(float));
  if (err != cudaSuccess) printf("%s\n", cudaGetErrorString(err));
  // CHECK: if (err != hipSuccess) printf("%s\n", hipGetErrorString(err));
  cudaMemset(d, 0, n * sizeof(float));
  // CHECK: hipMemset(d, 0, n * sizeof(float));
  float h[16];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  // CHECK: hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost);
  cudaStream_t s;
  // CHECK: hipStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  // CHECK: hipStreamCreateWithFlags(&s, hipStreamNonBlocking);
  cudaEvent_t start, stop;
  // CHECK: hipEvent_t start, stop;
  cudaEventCreate(&start);
  // CHECK: hipEventCreate(&start);
  cudaEventRecord(start, s);
  // CHECK: hipEventRecord(start, s);
  cudaMemcpyAsync(d, h, sizeof(h), cudaMemcpyHostToDevice, s);
  // CHECK: hipMemcpyAsync(d, h, sizeof(h), hipMemcpyHostToDevice, s);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  // CHECK: hipEventElapsedTime(&ms, start, stop);
  int dev = 0;
  cudaGetDevice(&dev);
  // CHECK: hipGetDevice(&dev);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  // CHECK: hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev);
  cudaDeviceSynchronize();
  // CHECK: hipDeviceSynchronize();
  cudaStreamDestroy(s);
  // CHECK: hipStreamDestroy(s);
  cudaFree(d);
  // CHECK: hipFree(d);
  cudaFooBarUnknown(d);
  // CHECK-REPORT: unknown cudaFooBarUnknown 45:3
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
  // CHECK: return hipGetLastError() == hipSuccess ? 0 : 1;
}
// CHECK-REPORT: translated cudaMalloc 9:21
// CHECK-REPORT: translated cuda_runtime.h 2:11
