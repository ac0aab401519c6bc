// Templated kernels: one axpy kernel for float, double and __half, a block-size template
// parameter, a functor parameter, and the explicit launches of each instantiation.
#include <cstdio>
#include <type_traits>
#include <vector>

#include <cuda_fp16.h>

#include "device_helpers.cuh"

template <typename T>
struct Axpy {
    T a;
    __device__ T operator()(T x, T y) const { return a * x + y; }
};

// __half has no host-side arithmetic in older headers; do the math in float on the device.
template <>
struct Axpy<__half> {
    __half a;
    __device__ __half operator()(__half x, __half y) const {
        return __float2half(__half2float(a) * __half2float(x) + __half2float(y));
    }
};

template <typename T, int BLOCK, typename Op>
__global__ void __launch_bounds__(BLOCK) binary_map(const T* x, T* y, int n, Op op) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) y[i] = op(x[i], y[i]);
}

template <typename T, int BLOCK>
__global__ void fill(T* p, T value, int n) {
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) p[i] = value;
}

template <typename T>
T from_float(float v) {
    if constexpr (std::is_same_v<T, __half>) {
        return __float2half(v);
    } else {
        return static_cast<T>(v);
    }
}

template <typename T>
float to_float(T v) {
    if constexpr (std::is_same_v<T, __half>) {
        return __half2float(v);
    } else {
        return static_cast<float>(v);
    }
}

template <typename T, int BLOCK = 256>
int run(const char* name, int n) {
    T *d_x, *d_y;
    CUDA_TRY(cudaMalloc(&d_x, n * sizeof(T)));
    CUDA_TRY(cudaMalloc(&d_y, n * sizeof(T)));
    const int blocks = helpers::ceil_div(n, BLOCK);
    fill<T, BLOCK><<<blocks, BLOCK>>>(d_x, from_float<T>(2.0f), n);
    fill<T, BLOCK><<<blocks, BLOCK>>>(d_y, from_float<T>(1.0f), n);
    CUDA_TRY_LAUNCH();
    Axpy<T> op{from_float<T>(3.0f)};
    binary_map<T, BLOCK, Axpy<T>><<<blocks, BLOCK>>>(d_x, d_y, n, op);
    CUDA_TRY_LAUNCH();

    std::vector<T> h_y(n);
    CUDA_TRY(cudaMemcpy(h_y.data(), d_y, n * sizeof(T), cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (to_float(h_y[i]) != 7.0f) ++errors;
    std::printf("%-6s block %4d: %d errors\n", name, BLOCK, errors);
    CUDA_TRY(cudaFree(d_x));
    CUDA_TRY(cudaFree(d_y));
    return errors;
}

int main() {
    int errors = 0;
    errors += run<float>("float", 100000);
    errors += run<double, 128>("double", 100000);
    errors += run<__half, 512>("half", 4097);
    return errors != 0;
}
