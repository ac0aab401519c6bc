// Runs y = 2x + y with the custom kernel, then y = 3x + y with cuBLAS, and checks the result.
#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kernels.cuh"

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n, 1.0f), y(n, 1.0f);
  float *dx = nullptr, *dy = nullptr;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  CHECK(launch_saxpy(n, 2.0f, dx, dy, stream));

  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(handle, stream);
  const float alpha = 3.0f;
  if (cublasSaxpy(handle, n, &alpha, dx, 1, dy, 1) != CUBLAS_STATUS_SUCCESS) return 1;
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));

  int wrong = 0;
  for (float v : y) wrong += v != 6.0f;
  std::printf("%s: %d of %d elements wrong\n", wrong ? "FAIL" : "OK", wrong, n);
  cublasDestroy(handle);
  cudaStreamDestroy(stream);
  cudaFree(dx);
  cudaFree(dy);
  return wrong != 0;
}
