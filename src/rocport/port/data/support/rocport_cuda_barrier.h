// rocport_cuda_barrier.h: added by `rocport port` in place of libcu++'s <cuda/barrier>, which
// ROCm does not have: block-scope cuda::barrier (init, arrive_and_wait) and cuda::memcpy_async
// onto such a barrier, over HIP.
//
// memcpy_async copies at once: CUDA only promises that the copy is complete when the barrier's
// wait returns, so copying earlier gives one of the outcomes CUDA allows. arrive_and_wait is
// __syncthreads(), which is what a barrier that expects every thread of the block does; a
// barrier initialised for another count traps (it would need a counting barrier). Other scopes
// and the split arrive()/wait() are not provided: code that uses them does not compile.
#ifndef ROCPORT_CUDA_BARRIER_H
#define ROCPORT_CUDA_BARRIER_H

#include <hip/hip_runtime.h>

#include <cstddef>

namespace cuda {

enum thread_scope {
  thread_scope_system = 0,
  thread_scope_device = 1,
  thread_scope_block = 2,
  thread_scope_thread = 3,
};

template <std::size_t Alignment>
struct aligned_size_t {
  std::size_t value;
  __host__ __device__ constexpr explicit aligned_size_t(std::size_t size) : value(size) {}
  __host__ __device__ constexpr operator std::size_t() const { return value; }
};

// No constructor and no member initialisers: it lives in __shared__ memory, set by init().
template <thread_scope Scope, typename CompletionFunction = void>
struct barrier {
  static_assert(Scope == thread_scope_block,
                "rocport_cuda_barrier.h provides block-scope barriers only");
  std::ptrdiff_t expected;

  __device__ void arrive_and_wait() {
    if (expected != static_cast<std::ptrdiff_t>(blockDim.x * blockDim.y * blockDim.z)) {
      __builtin_trap();  // not every thread of the block: __syncthreads() would be wrong
    }
    __syncthreads();
  }
};

template <thread_scope Scope, typename CompletionFunction>
__device__ void init(barrier<Scope, CompletionFunction>* bar, std::ptrdiff_t expected) {
  bar->expected = expected;
}

namespace rocport_detail {
template <typename Unit>
__device__ void copy_units(void* dst, const void* src, std::size_t bytes) {
  Unit* d = static_cast<Unit*>(dst);
  const Unit* s = static_cast<const Unit*>(src);
  for (std::size_t i = 0; i < bytes / sizeof(Unit); ++i) d[i] = s[i];
}
}  // namespace rocport_detail

template <thread_scope Scope, typename CompletionFunction>
__device__ void memcpy_async(void* dst, const void* src, std::size_t bytes,
                             barrier<Scope, CompletionFunction>&) {
  rocport_detail::copy_units<unsigned char>(dst, src, bytes);
}

// The alignment the program promises picks the width of each load and store.
template <std::size_t Alignment, thread_scope Scope, typename CompletionFunction>
__device__ void memcpy_async(void* dst, const void* src, aligned_size_t<Alignment> size,
                             barrier<Scope, CompletionFunction>&) {
  if constexpr (Alignment % 16 == 0) {
    rocport_detail::copy_units<uint4>(dst, src, size.value);
  } else if constexpr (Alignment % 8 == 0) {
    rocport_detail::copy_units<uint2>(dst, src, size.value);
  } else if constexpr (Alignment % 4 == 0) {
    rocport_detail::copy_units<unsigned int>(dst, src, size.value);
  } else {
    rocport_detail::copy_units<unsigned char>(dst, src, size.value);
  }
}

}  // namespace cuda

#endif  // ROCPORT_CUDA_BARRIER_H
