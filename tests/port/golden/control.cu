// Regions between "rocport: off" and "rocport: on" are left untouched.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

void f(float* p) {
  cudaFree(p);
  // CHECK: hipFree(p);
  // rocport: off
  cudaFree(p);  // kept: this branch is for the CUDA build
  cudaUnknownInOffRegion(p);
  /* rocport: on */
  cudaFree(p);
  // CHECK: hipFree(p);
}
// CHECK-COUNTS: found=3 translated=3
