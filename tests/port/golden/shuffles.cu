// Warp functions for the newest ROCm: by default the masked CUDA forms become HIP's mask-free
// ones, which act on the whole wavefront (what a full mask means), because HIP 6 declares
// the _sync forms only with HIP_ENABLE_WARP_SYNC_BUILTINS and only for 64-bit masks.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  // CHECK: v += __shfl_down(v, offset);
  return v;
}

__device__ int votes(int x) {
  unsigned ballot = __ballot_sync(0xffffffffu, x > 0);
  // CHECK: unsigned ballot = __ballot(x > 0);
  int y = __shfl_sync(__activemask(), x, 0);
  // CHECK: int y = __shfl(x, 0);
  int z = __shfl_xor_sync(0xffffffff,
  // CHECK: int z = __shfl_xor(
                          y, 1);
  return __popc(ballot) + z + __any_sync(~0u, y) + __all_sync(~0u, y);
  // CHECK: return __popc(ballot) + z + __any(y) + __all(y);
}
