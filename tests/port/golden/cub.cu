// CUB becomes hipCUB: the namespace and the header; a variable named cub is not a namespace.
#include <cub/cub.cuh>
// CHECK: #include <hipcub/hipcub.hpp>
// CHECK-INSERTED: #include <hip/hip_runtime.h>

__global__ void block_sum(const int* in, int* out) {
  using Reduce = cub::BlockReduce<int, 128>;
  // CHECK: using Reduce = hipcub::BlockReduce<int, 128>;
  __shared__ typename Reduce::TempStorage temp;
  int v = Reduce(temp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) *out = v;
}

size_t temp_bytes(const int* in, int* out, int n) {
  size_t bytes = 0;
  int cub = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, in, out, n);
  // CHECK: hipcub::DeviceReduce::Sum(nullptr, bytes, in, out, n);
  return bytes + cub;
}
