// Vector addition two ways:
//  - vector_add:        one element per thread, the textbook kernel;
//  - vector_add_float4: 16-byte loads and stores (float4) with a scalar tail, so that it is
//    correct for any n, and a host-side check that falls back to the scalar kernel when a
//    pointer is not 16-byte aligned (cudaMalloc returns 256-byte aligned memory, but an
//    offset pointer such as d_a + 1 is not).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__,     \
                         __LINE__, cudaGetErrorString(err_));                         \
            std::exit(EXIT_FAILURE);                                                  \
        }                                                                             \
    } while (0)

__global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ c, size_t n) {
    size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// Grid-stride loop over n / 4 float4 elements, then over the n % 4 leftovers.
__global__ void vector_add_float4(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, size_t n) {
    const size_t n4 = n / 4;
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (size_t i = tid; i < n4; i += stride) {
        float4 x = a4[i];
        float4 y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (size_t i = n4 * 4 + tid; i < n; i += stride) {
        c[i] = a[i] + b[i];
    }
}

static bool aligned16(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// Launches the float4 kernel when all pointers allow it, the scalar kernel otherwise.
static void add(const float* a, const float* b, float* c, size_t n, int sm_count,
                cudaStream_t stream) {
    const int threads = 256;
    if (aligned16(a) && aligned16(b) && aligned16(c)) {
        size_t work = (n / 4 > 0) ? n / 4 : n;
        int blocks = static_cast<int>((work + threads - 1) / threads);
        if (blocks > sm_count * 8) blocks = sm_count * 8;  // grid-stride loop does the rest
        if (blocks < 1) blocks = 1;
        vector_add_float4<<<blocks, threads, 0, stream>>>(a, b, c, n);
    } else {
        int blocks = static_cast<int>((n + threads - 1) / threads);
        vector_add<<<blocks, threads, 0, stream>>>(a, b, c, n);
    }
    CUDA_CHECK(cudaGetLastError());
}

static int check(const std::vector<float>& c, const std::vector<float>& a,
                 const std::vector<float>& b, size_t offset, size_t n) {
    int errors = 0;
    for (size_t i = 0; i < n; ++i) {
        if (c[i] != a[i + offset] + b[i + offset]) ++errors;
    }
    return errors;
}

int main(int argc, char** argv) {
    // An odd size on purpose: n % 4 != 0 exercises the tail loop.
    const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1u << 20) + 3;
    const size_t bytes = (n + 1) * sizeof(float);

    int device = 0;
    CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

    std::vector<float> h_a(n + 1), h_b(n + 1), h_c(n + 1);
    for (size_t i = 0; i <= n; ++i) {
        h_a[i] = static_cast<float>(i % 1000) * 0.5f;
        h_b[i] = static_cast<float>(i % 777) * 0.25f;
    }

    float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&d_b), bytes));
    CUDA_CHECK(cudaMalloc(&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice));

    // Aligned pointers: the float4 path.
    add(d_a, d_b, d_c, n, prop.multiProcessorCount, 0);
    CUDA_CHECK(cudaMemcpy(h_c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost));
    int errors = check(h_c, h_a, h_b, 0, n);

    // Offset by one element: not 16-byte aligned, so the scalar kernel runs.
    add(d_a + 1, d_b + 1, d_c, n, prop.multiProcessorCount, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_c.data(), d_c, n * sizeof(float), cudaMemcpyDeviceToHost));
    errors += check(h_c, h_a, h_b, 1, n);

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    std::printf("vector_add: %s (%d errors, n = %zu)\n", errors ? "FAILED" : "ok", errors, n);
    return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
