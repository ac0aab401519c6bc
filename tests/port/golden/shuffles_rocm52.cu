// RUN-ROCM: 5.2
// HIP 5.2 has no masked warp functions at all: the mask-free forms are the only ones.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  // CHECK: v += __shfl_down(v, offset);
  return v + __shfl_up_sync(0xffffffff, v, 1);
  // CHECK: return v + __shfl_up(v, 1);
}
