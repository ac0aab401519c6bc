// Device code: built-in variables, warpSize, intrinsics and atomics keep their names in HIP;
// CUDA-only types and headers are mapped.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_fp16.h>
// CHECK: #include <hip/hip_fp16.h>
#include <cuComplex.h>
// CHECK: #include <hip/hip_complex.h>

__global__ void k(const float* __restrict__ in, float* out, unsigned* bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = __ldg(&in[i]);
  out[i] = __expf(x) + __fdividef(x, 3.0f);
  atomicAdd(&bits[0], __popc(static_cast<unsigned>(i)));
  __syncthreads();
  __half h = __float2half(x);
  out[i] += __half2float(h) * (threadIdx.x % warpSize);
  cuFloatComplex z = make_cuFloatComplex(x, 1.0f);
  // CHECK: hipFloatComplex z = make_hipFloatComplex(x, 1.0f);
  out[i] += cuCabsf(cuCaddf(z, z));
  // CHECK: out[i] += hipCabsf(hipCaddf(z, z));
}
