// rocport_cg_reduce.h: added by `rocport port` in place of CUDA's <cooperative_groups/reduce.h>,
// which HIP does not have: cooperative_groups::reduce over a thread_block_tile, and the plus,
// less, greater, bit_and, bit_or and bit_xor operators it takes.
//
// As in CUDA, every thread of the tile gets the reduction of all the tile's values: a butterfly
// of the tile's own shfl_xor, log2(N) steps for a thread_block_tile<N> (N a power of two, at
// most the wavefront size). Other groups (coalesced_group, thread_block) and the
// reduce_update_async forms are not provided: code that uses them does not compile.
#ifndef ROCPORT_CG_REDUCE_H
#define ROCPORT_CG_REDUCE_H

#include <hip/hip_cooperative_groups.h>

namespace cooperative_groups {

template <typename T>
struct plus {
  __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
template <typename T>
struct less {  // the lesser of the two, as CUDA's cg::less
  __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <typename T>
struct greater {  // the greater of the two, as CUDA's cg::greater
  __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <typename T>
struct bit_and {
  __device__ T operator()(const T& a, const T& b) const { return a & b; }
};
template <typename T>
struct bit_or {
  __device__ T operator()(const T& a, const T& b) const { return a | b; }
};
template <typename T>
struct bit_xor {
  __device__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

template <unsigned int Size, typename Parent, typename T, typename Op>
__device__ T reduce(const thread_block_tile<Size, Parent>& tile, T value, Op op) {
  static_assert(Size > 0 && (Size & (Size - 1)) == 0, "tile size must be a power of two");
  for (unsigned int mask = Size / 2; mask > 0; mask /= 2) {
    value = op(value, tile.shfl_xor(value, mask));
  }
  return value;
}

}  // namespace cooperative_groups

#endif  // ROCPORT_CG_REDUCE_H
