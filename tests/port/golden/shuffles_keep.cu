// RUN-OPTIONS: warp_sync=keep
// warp_sync=keep: code that already passes 64-bit masks keeps the masked forms on ROCm 6.4
// (it is then built with -DHIP_ENABLE_WARP_SYNC_BUILTINS).
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

__device__ float warp_sum(float v, unsigned long long mask) {
  return v + __shfl_down_sync(mask, v, 1);
}
