// rocport_ldg.h: added by `rocport port` to files that call __ldg (or a cache-hinted load that
// became __ldg). HIP declares __ldg for the built-in scalar and vector types and for
// __half/__half2 (hip/amd_detail/hip_ldg.h, amd_hip_fp16.h, HIP 5.2 to 7.2); CUDA's also takes
// __nv_bfloat16 and __nv_bfloat162 (cuda_bf16.h), which HIP's does not. This template takes
// those and any other type. It is a plain load, as HIP's own __ldg is (AMD loads carry no
// read-only cache hint), and HIP's non-template overloads stay the better match for their
// types. Define ROCPORT_NO_LDG_TEMPLATE where the project declares a template __ldg of its own.
#ifndef ROCPORT_LDG_H
#define ROCPORT_LDG_H

#include <hip/hip_runtime.h>

#ifndef ROCPORT_NO_LDG_TEMPLATE
template <typename T>
__device__ inline T __ldg(const T* ptr) {
  return *ptr;
}
#endif

#endif  // ROCPORT_LDG_H
