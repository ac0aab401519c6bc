// Sums a vector with the custom kernel and with cuBLAS (ones . x) and compares the two.
#include <cmath>
#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "reduce.cuh"

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n, 0.5f), ones(n, 1.0f);
  float *dx = nullptr, *dones = nullptr, *dsum = nullptr;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess) return 1;
  if (cudaMalloc(&dones, n * sizeof(float)) != cudaSuccess) return 1;
  if (cudaMalloc(&dsum, sizeof(float)) != cudaSuccess) return 1;
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dones, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  if (launch_sum(dx, n, dsum) != cudaSuccess) return 1;
  float kernel_sum = 0.0f;
  cudaMemcpy(&kernel_sum, dsum, sizeof(float), cudaMemcpyDeviceToHost);

  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  float blas_sum = 0.0f;
  cublasSdot(handle, n, dx, 1, dones, 1, &blas_sum);
  cublasDestroy(handle);

  const bool ok = std::fabs(kernel_sum - blas_sum) <= 1e-3f * std::fabs(blas_sum);
  std::printf("%s: kernel %.1f, cuBLAS %.1f\n", ok ? "OK" : "FAIL", kernel_sum, blas_sum);
  cudaFree(dx);
  cudaFree(dones);
  cudaFree(dsum);
  return ok ? 0 : 1;
}
