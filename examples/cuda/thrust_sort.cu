// Thrust: device vectors, a transform with a __host__ __device__ functor, sort_by_key,
// reduce, a stream-ordered execution policy, and raw pointers handed to a hand-written kernel.
#include <cstdio>

#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                           \
    do {                                                                        \
        cudaError_t e_ = (x);                                                   \
        if (e_ != cudaSuccess) {                                                \
            printf("CUDA error: %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
            return 1;                                                           \
        }                                                                       \
    } while (0)

struct saxpy_functor {
    float a;
    explicit saxpy_functor(float a_) : a(a_) {}
    __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

__global__ void negate(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = -v[i];
}

int main() {
    const int n = 1 << 18;
    thrust::device_vector<float> x(n), y(n, 1.0f);
    thrust::sequence(x.begin(), x.end());  // 0, 1, 2, ...
    thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor(2.0f));

    // keys descending, values carried along
    thrust::device_vector<int> keys(n);
    thrust::sequence(keys.begin(), keys.end(), n, -1);
    thrust::sort_by_key(keys.begin(), keys.end(), y.begin());

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    float total = thrust::reduce(thrust::cuda::par.on(stream), y.begin(), y.end(), 0.0f,
                                 thrust::plus<float>());

    float* raw = thrust::raw_pointer_cast(y.data());
    negate<<<(n + 255) / 256, 256, 0, stream>>>(raw, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));

    thrust::host_vector<float> h = y;
    // y[i] = 2 * i + 1 before the sort; the sort reversed it, the kernel negated it
    const bool ok = h[0] == -(2.0f * (n - 1) + 1.0f) && h[n - 1] == -1.0f;
    const double expected = static_cast<double>(n) * n;  // sum of 2i + 1 over i < n
    printf("sum %.0f (expected %.0f), first %.0f, last %.0f: %s\n", total, expected, h[0],
           h[n - 1], ok ? "ok" : "FAILED");
    CUDA_CHECK(cudaStreamDestroy(stream));
    return ok ? 0 : 1;
}
