#include "reduce.cuh"

template <int Block>
__global__ void sum_kernel(const float* __restrict__ x, int n, float* out) {
  __shared__ float partial[Block];
  float v = 0.0f;
  for (int i = blockIdx.x * Block + threadIdx.x; i < n; i += gridDim.x * Block) v += x[i];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = Block / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

cudaError_t launch_sum(const float* x, int n, float* out) {
  constexpr int block = 256;
  cudaError_t err = cudaMemset(out, 0, sizeof(float));
  if (err != cudaSuccess) return err;
  sum_kernel<block><<<120, block>>>(x, n, out);
  return cudaGetLastError();
}
