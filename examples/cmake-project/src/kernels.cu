#include "kernels.cuh"

__global__ void saxpy_kernel(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

cudaError_t launch_saxpy(int n, float a, const float* x, float* y, cudaStream_t stream) {
  const int block = 256;
  saxpy_kernel<<<(n + block - 1) / block, block, 0, stream>>>(n, a, x, y);
  return cudaGetLastError();
}
