// y = A * x for a sparse CSR matrix with the cuSPARSE generic API (cusparseSpMV).
// hipSPARSE has this API in every ROCm release the project targets, so the port must compile
// with the Debian 12 (ROCm 5.2) packages as well as with ROCm 6.4.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <cusparse.h>

#define CHECK_CUDA(expr)                                                                  \
    do {                                                                                  \
        cudaError_t s_ = (expr);                                                          \
        if (s_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(s_));       \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

#define CHECK_CUSPARSE(expr)                                                              \
    do {                                                                                  \
        cusparseStatus_t s_ = (expr);                                                     \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                              \
            std::fprintf(stderr, "%s failed: %d\n", #expr, static_cast<int>(s_));         \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

int main() {
    // 4x4 tridiagonal matrix (2 on the diagonal, -1 beside it)
    const int n = 4;
    std::vector<int> rows = {0, 2, 5, 8, 10};
    std::vector<int> cols = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    std::vector<float> vals = {2, -1, -1, 2, -1, -1, 2, -1, -1, 2};
    std::vector<float> x(n, 1.0f), y(n, 0.0f);
    const int nnz = static_cast<int>(vals.size());

    int *d_rows, *d_cols;
    float *d_vals, *d_x, *d_y;
    CHECK_CUDA(cudaMalloc(&d_rows, rows.size() * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_cols, cols.size() * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&d_vals, vals.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d_rows, rows.data(), rows.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_cols, cols.data(), cols.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_vals, vals.data(), vals.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cusparseHandle_t handle;
    CHECK_CUSPARSE(cusparseCreate(&handle));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    CHECK_CUSPARSE(cusparseCreateCsr(&mat, n, n, nnz, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vec_x, n, d_x, CUDA_R_32F));
    CHECK_CUSPARSE(cusparseCreateDnVec(&vec_y, n, d_y, CUDA_R_32F));

    const float alpha = 1.0f, beta = 0.0f;
    size_t buffer_size = 0;
    CHECK_CUSPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat,
                                           vec_x, &beta, vec_y, CUDA_R_32F,
                                           CUSPARSE_SPMV_ALG_DEFAULT, &buffer_size));
    void* buffer = nullptr;
    CHECK_CUDA(cudaMalloc(&buffer, buffer_size));
    CHECK_CUSPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vec_x,
                                &beta, vec_y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buffer));
    CHECK_CUDA(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

    // A * ones = (1, 0, 0, 1)
    const float expected[n] = {1, 0, 0, 1};
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += y[i] != expected[i];
    std::printf("spmv: %s\n", bad ? "FAILED" : "ok");

    CHECK_CUSPARSE(cusparseDestroySpMat(mat));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vec_x));
    CHECK_CUSPARSE(cusparseDestroyDnVec(vec_y));
    CHECK_CUSPARSE(cusparseDestroy(handle));
    CHECK_CUDA(cudaFree(buffer));
    CHECK_CUDA(cudaFree(d_rows));
    CHECK_CUDA(cudaFree(d_cols));
    CHECK_CUDA(cudaFree(d_vals));
    CHECK_CUDA(cudaFree(d_x));
    CHECK_CUDA(cudaFree(d_y));
    return bad != 0;
}
