// CUB in both of its forms: device-wide primitives (DeviceReduce::Sum, DeviceScan) with the
// usual two-call temporary-storage pattern, and a block-level BlockReduce inside a kernel.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define CUDA_CHECK(x)                                                                  \
    do {                                                                               \
        cudaError_t err_ = (x);                                                        \
        if (err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

constexpr int kThreads = 128;

struct MaxOp {
    __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// One partial maximum per block with cub::BlockReduce.
__global__ void block_max(const int* in, int* out, int n) {
    using BlockReduce = cub::BlockReduce<int, kThreads>;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * kThreads + threadIdx.x;
    int v = i < n ? in[i] : INT_MIN;
    int block_result = BlockReduce(temp).Reduce(v, MaxOp());
    if (threadIdx.x == 0) out[blockIdx.x] = block_result;
}

int main() {
    const int n = 1000003;
    std::vector<int> h(n);
    long long expected = 0;
    for (int i = 0; i < n; ++i) {
        h[i] = (i * 37) % 101;
        expected += h[i];
    }
    int *d_in, *d_scan;
    long long* d_sum;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_scan, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_sum, sizeof(long long)));
    CUDA_CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    // First call: ask for the temporary storage size; second call: do the work.
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, n));
    CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_sum, n));
    CUDA_CHECK(cudaFree(d_temp));

    d_temp = nullptr;
    temp_bytes = 0;
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_scan, n));
    CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_scan, n));

    const int blocks = (n + kThreads - 1) / kThreads;
    int* d_max;
    CUDA_CHECK(cudaMalloc(&d_max, blocks * sizeof(int)));
    block_max<<<blocks, kThreads>>>(d_in, d_max, n);
    CUDA_CHECK(cudaGetLastError());

    long long sum = 0;
    int last = 0;
    std::vector<int> maxima(blocks);
    CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof(sum), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&last, d_scan + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(maxima.data(), d_max, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int overall = INT_MIN;
    for (int m : maxima) overall = m > overall ? m : overall;
    printf("sum %lld (expected %lld), scan tail %d, max %d\n", sum, expected, last, overall);

    CUDA_CHECK(cudaFree(d_temp));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_scan));
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaFree(d_max));
    return (sum == expected && last == static_cast<int>(expected) && overall == 100) ? 0 : 1;
}
