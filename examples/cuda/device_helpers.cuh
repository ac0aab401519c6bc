// Small device-side helpers shared by the samples, and the error-check macro they use.
// Header-only: every function is inline or a template.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

// Abort with file and line when a CUDA runtime call fails.
#define CUDA_TRY(call)                                                                  \
    do {                                                                                \
        const cudaError_t rc_ = (call);                                                 \
        if (rc_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,        \
                         cudaGetErrorString(rc_));                                      \
            std::exit(EXIT_FAILURE);                                                    \
        }                                                                               \
    } while (0)

// Check the launch itself, then (in debug builds) wait for the kernel and check it too.
#ifdef NDEBUG
#define CUDA_TRY_LAUNCH() CUDA_TRY(cudaGetLastError())
#else
#define CUDA_TRY_LAUNCH()                     \
    do {                                      \
        CUDA_TRY(cudaGetLastError());         \
        CUDA_TRY(cudaDeviceSynchronize());    \
    } while (0)
#endif

namespace helpers {

__host__ __device__ constexpr inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// The global index of this thread in a 1-D grid.
__device__ inline int global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Clamp to [lo, hi] without branches.
template <typename T>
__device__ inline T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

// Read-only cached load.
template <typename T>
__device__ inline T load_readonly(const T* p) {
    return __ldg(p);
}

// Fast approximations of the math functions most kernels use.
__device__ inline float fast_sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }
__device__ inline float fast_rsqrt(float x) { return rsqrtf(x); }

inline int device_sm_count(int device = 0) {
    int sms = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

}  // namespace helpers
