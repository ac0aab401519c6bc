// Include paths are mapped with the form they were written in; local headers stay.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>
#include "cuda_runtime_api.h"
// CHECK: #include "hip/hip_runtime_api.h"
  #  include <cuComplex.h>
// CHECK: #  include <hip/hip_complex.h>
#include <cuda_fp16.h>
// CHECK: #include <hip/hip_fp16.h>
#include <curand_kernel.h>
// CHECK: #include <hiprand/hiprand_kernel.h>
#include <cooperative_groups.h>
// CHECK: #include <hip/hip_cooperative_groups.h>
#include "my_cuda_helpers.h"
#include <cuda_no_such_header.h>
// CHECK-REPORT: unknown cuda_no_such_header.h 15:11
#include <vector>
// #include <cublas_v2.h> in a comment
// CHECK-COUNTS: found=7 translated=6 unknown=1
