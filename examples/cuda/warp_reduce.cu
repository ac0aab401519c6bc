// Sum reduction with warp shuffles: each warp reduces its 32 values with __shfl_down_sync,
// warp leaders write to shared memory, and the first warp reduces the partial sums.
// Written the way most CUDA code is: a full 0xffffffff mask and a warp size of 32.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(expr)                                                                    \
    do {                                                                                    \
        cudaError_t status_ = (expr);                                                       \
        if (status_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,            \
                    cudaGetErrorString(status_));                                           \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

constexpr unsigned FULL_MASK = 0xffffffff;
constexpr int WARP = 32;
constexpr int BLOCK = 256;

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = WARP / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

__global__ void block_sum(const float* __restrict__ in, float* __restrict__ partial, int n) {
    __shared__ float warp_sums[BLOCK / WARP];
    const int lane = threadIdx.x % WARP;
    const int warp = threadIdx.x / WARP;

    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        v += in[i];
    }
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = lane < BLOCK / WARP ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}

// How many values are positive: one ballot per warp, counted with __popc.
__global__ void count_positive(const float* __restrict__ in, unsigned* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool positive = i < n && in[i] > 0.0f;
    unsigned ballot = __ballot_sync(FULL_MASK, positive);
    if (threadIdx.x % WARP == 0) {
        atomicAdd(count, static_cast<unsigned>(__popc(ballot)));
    }
}

// Broadcast lane 0's value to the warp and compare: every lane must see the same value.
__global__ void broadcast_check(int* mismatches) {
    int value = threadIdx.x * 7;
    int first = __shfl_sync(FULL_MASK, value, 0);
    if (first != (threadIdx.x / WARP) * WARP * 7) atomicAdd(mismatches, 1);
}

int main() {
    const int n = 1 << 22;
    const int blocks = 240;
    std::vector<float> h_in(n);
    double expected = 0.0;
    int expected_positive = 0;
    for (int i = 0; i < n; ++i) {
        h_in[i] = static_cast<float>((i % 17) - 8);
        expected += h_in[i];
        expected_positive += h_in[i] > 0.0f;
    }

    float *d_in, *d_partial;
    unsigned* d_count;
    int* d_mismatch;
    CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_partial, blocks * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_count, sizeof(unsigned)));
    CHECK_CUDA(cudaMalloc(&d_mismatch, sizeof(int)));
    CHECK_CUDA(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d_count, 0, sizeof(unsigned)));
    CHECK_CUDA(cudaMemset(d_mismatch, 0, sizeof(int)));

    block_sum<<<blocks, BLOCK>>>(d_in, d_partial, n);
    CHECK_CUDA(cudaGetLastError());
    count_positive<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_in, d_count, n);
    CHECK_CUDA(cudaGetLastError());
    broadcast_check<<<4, BLOCK>>>(d_mismatch);
    CHECK_CUDA(cudaGetLastError());

    std::vector<float> h_partial(blocks);
    unsigned h_count = 0;
    int h_mismatch = 0;
    CHECK_CUDA(cudaMemcpy(h_partial.data(), d_partial, blocks * sizeof(float),
                          cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&h_count, d_count, sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&h_mismatch, d_mismatch, sizeof(int), cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (float p : h_partial) sum += p;

    printf("sum %.1f (expected %.1f), positive %u (expected %d), broadcast mismatches %d\n",
           sum, expected, h_count, expected_positive, h_mismatch);
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_partial));
    CHECK_CUDA(cudaFree(d_count));
    CHECK_CUDA(cudaFree(d_mismatch));
    bool ok = sum == expected && static_cast<int>(h_count) == expected_positive && !h_mismatch;
    return ok ? 0 : 1;
}
