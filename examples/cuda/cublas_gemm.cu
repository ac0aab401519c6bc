// Single-precision GEMM with cuBLAS, twice: cublasSgemm, and cublasGemmEx with explicit data
// and compute types. cuBLAS is column-major: C(m x n) = alpha * A(m x k) * B(k x n) + beta * C.
// The result is compared with a reference computed on the host.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "CUDA: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

#define CUBLAS_CHECK(call)                                                                 \
    do {                                                                                   \
        cublasStatus_t s_ = (call);                                                        \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
            fprintf(stderr, "cuBLAS status %d (%s:%d)\n", static_cast<int>(s_), __FILE__,  \
                    __LINE__);                                                             \
            exit(EXIT_FAILURE);                                                            \
        }                                                                                  \
    } while (0)

static void gemm_reference(int m, int n, int k, float alpha, const std::vector<float>& a,
                           const std::vector<float>& b, float beta, std::vector<float>& c) {
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
            double acc = 0.0;
            for (int p = 0; p < k; ++p) acc += a[i + p * m] * b[p + j * k];
            c[i + j * m] = static_cast<float>(alpha * acc + beta * c[i + j * m]);
        }
    }
}

static double max_error(const std::vector<float>& x, const std::vector<float>& y) {
    double err = 0.0;
    for (size_t i = 0; i < x.size(); ++i) err = fmax(err, fabs(x[i] - y[i]));
    return err;
}

int main() {
    const int m = 256, n = 192, k = 320;
    const float alpha = 1.5f, beta = 0.5f;
    std::vector<float> h_a(m * k), h_b(k * n), h_c(m * n), h_ref(m * n), h_out(m * n);
    for (size_t i = 0; i < h_a.size(); ++i) h_a[i] = static_cast<float>((i * 7) % 13) / 13.0f;
    for (size_t i = 0; i < h_b.size(); ++i) h_b[i] = static_cast<float>((i * 5) % 11) / 11.0f;
    for (size_t i = 0; i < h_c.size(); ++i) h_c[i] = 1.0f;
    h_ref = h_c;
    gemm_reference(m, n, k, alpha, h_a, h_b, beta, h_ref);

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, h_a.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_b, h_b.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_c, h_c.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_a, h_a.data(), h_a.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b.data(), h_b.size() * sizeof(float), cudaMemcpyHostToDevice));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cublasHandle_t handle;
    CUBLAS_CHECK(cublasCreate(&handle));
    CUBLAS_CHECK(cublasSetStream(handle, stream));
    CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));

    // 1. cublasSgemm
    CUDA_CHECK(cudaMemcpy(d_c, h_c.data(), h_c.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, d_a, m, d_b, k,
                             &beta, d_c, m));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_c, h_out.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    const double err_sgemm = max_error(h_out, h_ref);

    // 2. cublasGemmEx: same product, types spelled out
    CUDA_CHECK(cudaMemcpy(d_c, h_c.data(), h_c.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, d_a, CUDA_R_32F,
                              m, d_b, CUDA_R_32F, k, &beta, d_c, CUDA_R_32F, m,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaMemcpy(h_out.data(), d_c, h_out.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    const double err_gemmex = max_error(h_out, h_ref);

    // 3. a transposed product, C = A^T * A (k x k), to exercise CUBLAS_OP_T
    float* d_ata;
    CUDA_CHECK(cudaMalloc(&d_ata, k * k * sizeof(float)));
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, k, k, m, &one, d_a, m, d_a, m,
                             &zero, d_ata, k));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    printf("max |error|: sgemm %.3g, gemmex %.3g\n", err_sgemm, err_gemmex);
    CUBLAS_CHECK(cublasDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    CUDA_CHECK(cudaFree(d_ata));
    return (err_sgemm < 1e-3 && err_gemmex < 1e-3) ? 0 : 1;
}
