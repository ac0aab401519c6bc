// CUDA calls hidden behind macros, the way larger code bases wrap them: allocation helpers,
// a launch macro, a timing scope, and code paths selected by __CUDACC__ / __CUDA_ARCH__.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <cuda_runtime_api.h>

#define CUDA_SAFE_CALL(call)                                                          \
    do {                                                                              \
        cudaError_t _e = call;                                                        \
        if (cudaSuccess != _e) {                                                      \
            fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__,   \
                    __LINE__, cudaGetErrorString(_e));                                \
            exit(EXIT_FAILURE);                                                       \
        }                                                                             \
    } while (0)

#define DEVICE_ALLOC(ptr, count) CUDA_SAFE_CALL(cudaMalloc((void**)&(ptr), (count) * sizeof(*(ptr))))
#define DEVICE_FREE(ptr) CUDA_SAFE_CALL(cudaFree(ptr))
#define TO_DEVICE(dst, src, count) \
    CUDA_SAFE_CALL(cudaMemcpy((dst), (src), (count) * sizeof(*(src)), cudaMemcpyHostToDevice))
#define TO_HOST(dst, src, count) \
    CUDA_SAFE_CALL(cudaMemcpy((dst), (src), (count) * sizeof(*(src)), cudaMemcpyDeviceToHost))

// Launch over n elements with 256 threads per block, then check the launch.
#define LAUNCH_1D(kernel, n, ...)                                         \
    do {                                                                  \
        kernel<<<((n) + 255) / 256, 256>>>(__VA_ARGS__);                  \
        CUDA_SAFE_CALL(cudaPeekAtLastError());                            \
    } while (0)

// Times the statements in its body with events on the default stream.
#define TIMED(label, ...)                                                 \
    do {                                                                  \
        cudaEvent_t _start, _stop;                                        \
        CUDA_SAFE_CALL(cudaEventCreate(&_start));                         \
        CUDA_SAFE_CALL(cudaEventCreate(&_stop));                          \
        CUDA_SAFE_CALL(cudaEventRecord(_start, 0));                       \
        __VA_ARGS__;                                                      \
        CUDA_SAFE_CALL(cudaEventRecord(_stop, 0));                        \
        CUDA_SAFE_CALL(cudaEventSynchronize(_stop));                      \
        float _ms = 0;                                                    \
        CUDA_SAFE_CALL(cudaEventElapsedTime(&_ms, _start, _stop));        \
        printf("%s: %.3f ms\n", label, _ms);                              \
        CUDA_SAFE_CALL(cudaEventDestroy(_start));                         \
        CUDA_SAFE_CALL(cudaEventDestroy(_stop));                          \
    } while (0)

#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif

HD inline float square(float x) { return x * x; }

__device__ float device_or_host_tag() {
#ifdef __CUDA_ARCH__
    return 1.0f;  // device pass
#else
    return 0.0f;  // host pass (never called)
#endif
}

__global__ void squares(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = square(in[i]) * device_or_host_tag();
}

int main() {
    const int n = 1 << 16;
    float* h = static_cast<float*>(malloc(n * sizeof(float)));
    for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 10);
    float *d_in, *d_out;
    DEVICE_ALLOC(d_in, n);
    DEVICE_ALLOC(d_out, n);
    TO_DEVICE(d_in, h, n);
    TIMED("squares", LAUNCH_1D(squares, n, d_out, d_in, n));
    TO_HOST(h, d_out, n);
    int errors = 0;
    for (int i = 0; i < n; ++i)
        if (h[i] != square(static_cast<float>(i % 10))) ++errors;
    int runtime_version = 0;
    CUDA_SAFE_CALL(cudaRuntimeGetVersion(&runtime_version));
    printf("runtime %d, %d errors\n", runtime_version, errors);
    DEVICE_FREE(d_in);
    DEVICE_FREE(d_out);
    free(h);
    return errors != 0;
}
