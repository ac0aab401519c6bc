// RUN-OPTIONS: blas=rocblas
// --blas=rocblas: cuBLAS maps to rocBLAS instead of hipBLAS.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

void gemm(cublasHandle_t h, int n, const float* a, const float* b, float* c) {
  // CHECK: void gemm(rocblas_handle h, int n, const float* a, const float* b, float* c) {
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, a, n, b, n, &zero, c, n);
  // CHECK: rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_transpose, n, n, n, &one, a, n, b, n, &zero, c, n);
}
