// Math libraries: cuBLAS -> hipBLAS, cuFFT -> hipFFT, cuRAND -> hipRAND, cuSPARSE -> hipSPARSE,
// cuSOLVER -> hipSOLVER, NCCL -> RCCL (same names), cuDNN -> MIOpen where 1:1.
#include <cublas_v2.h>
// CHECK: #include <hipblas/hipblas.h>
#include <cufft.h>
// CHECK: #include <hipfft/hipfft.h>
#include <curand.h>
// CHECK: #include <hiprand/hiprand.h>
#include <cusparse.h>
// CHECK: #include <hipsparse/hipsparse.h>
#include <cusolverDn.h>
// CHECK: #include <hipsolver/hipsolver.h>
#include <nccl.h>
// CHECK: #include <rccl/rccl.h>
#include <cudnn.h>
// CHECK: #include <miopen/miopen.h>
// CHECK-INSERTED: #include <hip/hip_runtime.h>

void setup(ncclComm_t comm, float* d, int n) {
  cublasHandle_t blas;
  // CHECK: hipblasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) return;
  // CHECK: if (hipblasCreate(&blas) != HIPBLAS_STATUS_SUCCESS) return;
  cufftHandle plan;
  // CHECK: hipfftHandle plan;
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  // CHECK: hipfftPlan1d(&plan, n, HIPFFT_C2C, 1);
  curandGenerator_t gen;
  // CHECK: hiprandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  // CHECK: hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT);
  cusparseHandle_t sparse;
  // CHECK: hipsparseHandle_t sparse;
  cusparseCreate(&sparse);
  // CHECK: hipsparseCreate(&sparse);
  cusolverDnHandle_t solver;
  // CHECK: hipsolverDnHandle_t solver;
  cusolverDnCreate(&solver);
  // CHECK: hipsolverDnCreate(&solver);
  ncclAllReduce(d, d, n, ncclFloat, ncclSum, comm, 0);
  cudnnHandle_t dnn;
  // CHECK: miopenHandle_t dnn;
  cudnnCreate(&dnn);
  // CHECK: miopenCreate(&dnn);
  cudnnConvolutionForward(dnn, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                          CUDNN_CONVOLUTION_FWD_ALGO_GEMM, nullptr, 0, nullptr, nullptr, nullptr);
  // CHECK: miopenConvolutionFwdAlgoGEMM, nullptr, 0, nullptr, nullptr, nullptr);
  // CHECK-REPORT: unsupported cudnnConvolutionForward 45:3
}
