// Cooperative groups: a block-wide sum with thread_block and 32-thread tiles (tile.shfl_down),
// and a grid-wide two-phase reduction that synchronises the whole grid with grid_group::sync
// (launched with cudaLaunchCooperativeKernel, sized so that every block is resident).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s failed at line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

constexpr int kBlock = 256;

__device__ float tile_sum(cg::thread_block_tile<32> tile, float v) {
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    return v;
}

__device__ float block_sum(cg::thread_block block, float v) {
    __shared__ float partial[kBlock / 32];
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = tile_sum(tile, v);
    if (tile.thread_rank() == 0) partial[block.thread_rank() / 32] = v;
    block.sync();
    v = block.thread_rank() < kBlock / 32 ? partial[block.thread_rank()] : 0.0f;
    if (block.thread_rank() < 32) v = tile_sum(tile, v);
    return v;
}

__global__ void grid_sum(const float* in, float* block_out, float* total, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();

    float v = 0.0f;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) v += in[i];
    v = block_sum(block, v);
    if (block.thread_rank() == 0) block_out[blockIdx.x] = v;

    grid.sync();  // every block's partial sum is now visible

    if (blockIdx.x == 0) {
        float w = 0.0f;
        for (int b = block.thread_rank(); b < gridDim.x; b += block.size()) w += block_out[b];
        w = block_sum(block, w);
        if (block.thread_rank() == 0) *total = w;
    }
}

int main() {
    int device = 0, supported = 0, sms = 0, per_sm = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, device));
    if (!supported) {
        printf("cooperative launch not supported\n");
        return 0;
    }
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, kBlock, 0));
    int blocks = sms * per_sm;

    int n = 1 << 22;
    std::vector<float> h(n, 1.0f);
    float *d_in, *d_blocks, *d_total;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_blocks, blocks * sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    void* args[] = {&d_in, &d_blocks, &d_total, &n};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_sum), dim3(blocks),
                                      dim3(kBlock), args, 0, nullptr));
    CHECK(cudaDeviceSynchronize());
    float total = 0.0f;
    CHECK(cudaMemcpy(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    printf("sum %.0f (expected %d) with %d cooperative blocks\n", total, n, blocks);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_blocks));
    CHECK(cudaFree(d_total));
    return total == static_cast<float>(n) ? 0 : 1;
}
