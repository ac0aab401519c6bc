// Symbol APIs take the symbol itself in CUDA; HIP wants HIP_SYMBOL(symbol).
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

__constant__ float c_table[64];
__device__ int d_counter;

void upload(const float* h, cudaStream_t s) {
  // CHECK: void upload(const float* h, hipStream_t s) {
  cudaMemcpyToSymbol(c_table, h, sizeof(c_table));
  // CHECK: hipMemcpyToSymbol(HIP_SYMBOL(c_table), h, sizeof(c_table));
  cudaMemcpyToSymbolAsync(c_table, h, 16, 0, cudaMemcpyHostToDevice, s);
  // CHECK: hipMemcpyToSymbolAsync(HIP_SYMBOL(c_table), h, 16, 0, hipMemcpyHostToDevice, s);
  float back[64];
  cudaMemcpyFromSymbol(back, c_table, sizeof(back));
  // CHECK: hipMemcpyFromSymbol(back, HIP_SYMBOL(c_table), sizeof(back));
  int* counter = nullptr;
  cudaGetSymbolAddress((void**)&counter, d_counter);
  // CHECK: hipGetSymbolAddress((void**)&counter, HIP_SYMBOL(d_counter));
  size_t bytes = 0;
  cudaGetSymbolSize(&bytes, c_table);
  // CHECK: hipGetSymbolSize(&bytes, HIP_SYMBOL(c_table));
}
