// Polynomial evaluation with the coefficients in __constant__ memory, set and read back with
// the symbol APIs (cudaMemcpyToSymbol / cudaMemcpyFromSymbol / cudaGetSymbolAddress), and a
// __device__ counter read through its symbol address.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CK(call)                                                                           \
    if ((call) != cudaSuccess) {                                                           \
        fprintf(stderr, "failed: %s (%s)\n", #call, cudaGetErrorString(cudaGetLastError())); \
        return 1;                                                                          \
    }

constexpr int kMaxDegree = 16;
__constant__ float c_coeffs[kMaxDegree];
__constant__ int c_degree;
__device__ unsigned int d_evaluations;

__global__ void horner(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = c_coeffs[c_degree - 1];
    for (int k = c_degree - 2; k >= 0; --k) acc = acc * x[i] + c_coeffs[k];
    y[i] = acc;
    atomicAdd(&d_evaluations, 1u);
}

int main() {
    const int n = 4096;
    const float coeffs[] = {1.0f, -2.0f, 0.5f, 0.25f};  // 1 - 2x + x^2/2 + x^3/4
    const int degree = 4;

    CK(cudaMemcpyToSymbol(c_coeffs, coeffs, sizeof(coeffs)));
    CK(cudaMemcpyToSymbol(c_degree, &degree, sizeof(int), 0, cudaMemcpyHostToDevice));
    unsigned int zero = 0;
    CK(cudaMemcpyToSymbolAsync(d_evaluations, &zero, sizeof(zero), 0, cudaMemcpyHostToDevice, 0));

    float check[kMaxDegree] = {};
    CK(cudaMemcpyFromSymbol(check, c_coeffs, sizeof(coeffs)));
    for (int k = 0; k < degree; ++k)
        if (check[k] != coeffs[k]) return 2;

    size_t symbol_size = 0;
    CK(cudaGetSymbolSize(&symbol_size, c_coeffs));
    unsigned int* counter = nullptr;
    CK(cudaGetSymbolAddress(reinterpret_cast<void**>(&counter), d_evaluations));
    printf("c_coeffs holds %zu bytes; counter at %p\n", symbol_size, static_cast<void*>(counter));

    std::vector<float> h_x(n), h_y(n);
    for (int i = 0; i < n; ++i) h_x[i] = -1.0f + 2.0f * i / n;
    float *d_x, *d_y;
    CK(cudaMalloc(&d_x, n * sizeof(float)));
    CK(cudaMalloc(&d_y, n * sizeof(float)));
    CK(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    horner<<<(n + 127) / 128, 128>>>(d_x, d_y, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));

    unsigned int evaluations = 0;
    CK(cudaMemcpy(&evaluations, counter, sizeof(evaluations), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < n; ++i) {
        float x = h_x[i];
        float expect = ((0.25f * x + 0.5f) * x - 2.0f) * x + 1.0f;
        if (fabsf(h_y[i] - expect) > 1e-5f) ++errors;
    }
    printf("%u evaluations, %d errors\n", evaluations, errors);
    CK(cudaFree(d_x));
    CK(cudaFree(d_y));
    return errors != 0 || evaluations != static_cast<unsigned>(n);
}
