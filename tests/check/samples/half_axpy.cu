// y = a * x + y in half precision, two values at a time with __half2 intrinsics, plus a
// warp-level vote (__any_sync) that tells whether any lane saw a non-finite result.
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void haxpy(int n2, __half a, const __half2* x, __half2* y, int* saw_inf) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool bad = false;
    if (i < n2) {
        __half2 a2 = __half2half2(a);
        __half2 r = __hfma2(a2, x[i], y[i]);
        y[i] = r;
        bad = __hisinf(__low2half(r)) || __hisinf(__high2half(r));
    }
    if (__any_sync(0xffffffffu, bad) && (threadIdx.x % warpSize) == 0) {
        atomicOr(saw_inf, 1);
    }
}

int main() {
    const int n = 1 << 12, n2 = n / 2;
    std::vector<__half> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = __float2half(0.5f * (i % 7));
        y[i] = __float2half(1.0f);
    }
    __half2 *d_x, *d_y;
    int* d_inf;
    cudaMalloc(&d_x, n * sizeof(__half));
    cudaMalloc(&d_y, n * sizeof(__half));
    cudaMalloc(&d_inf, sizeof(int));
    cudaMemset(d_inf, 0, sizeof(int));
    cudaMemcpy(d_x, x.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
    haxpy<<<(n2 + 255) / 256, 256>>>(n2, __float2half(2.0f), d_x, d_y, d_inf);
    cudaError_t status = cudaDeviceSynchronize();
    if (status != cudaSuccess) {
        std::printf("haxpy: %s\n", cudaGetErrorString(status));
        return 1;
    }
    int inf = 0;
    cudaMemcpy(y.data(), d_y, n * sizeof(__half), cudaMemcpyDeviceToHost);
    cudaMemcpy(&inf, d_inf, sizeof(int), cudaMemcpyDeviceToHost);
    float worst = 0.0f;
    for (int i = 0; i < n; ++i) {
        float expected = 2.0f * 0.5f * (i % 7) + 1.0f;
        worst = std::fmax(worst, std::fabs(__half2float(y[i]) - expected));
    }
    std::printf("haxpy: max error %g, inf %d\n", worst, inf);
    cudaFree(d_x);
    cudaFree(d_y);
    cudaFree(d_inf);
    return worst > 1e-2f || inf;
}
