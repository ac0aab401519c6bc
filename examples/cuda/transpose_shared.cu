// Matrix transpose through a shared-memory tile: reads and writes are both coalesced, and the
// tile has one padding column so that the column-wise reads hit 32 different banks.
#include <cstdio>
#include <vector>

#include "device_helpers.cuh"

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void transpose_naive(float* out, const float* in, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && y + j < height) out[x * height + (y + j)] = in[(y + j) * width + x];
    }
}

__global__ void transpose_tiled(float* out, const float* in, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && y + j < height) {
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
        }
    }
    __syncthreads();

    // swap the block indices: block (bx, by) writes the tile at (by, bx) of the output
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < height && y + j < width) {
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

int main() {
    const int width = 1000, height = 777;  // not multiples of the tile: edges are checked
    std::vector<float> h_in(width * height), h_out(width * height);
    for (int i = 0; i < width * height; ++i) h_in[i] = static_cast<float>(i);

    // pitched allocation for the input, to show cudaMallocPitch + cudaMemcpy2D
    float* d_pitched;
    size_t pitch = 0;
    CUDA_TRY(cudaMallocPitch(reinterpret_cast<void**>(&d_pitched), &pitch, width * sizeof(float),
                             height));
    CUDA_TRY(cudaMemcpy2D(d_pitched, pitch, h_in.data(), width * sizeof(float),
                          width * sizeof(float), height, cudaMemcpyHostToDevice));

    float *d_in, *d_out;
    CUDA_TRY(cudaMalloc(&d_in, width * height * sizeof(float)));
    CUDA_TRY(cudaMalloc(&d_out, width * height * sizeof(float)));
    CUDA_TRY(cudaMemcpy2D(d_in, width * sizeof(float), d_pitched, pitch, width * sizeof(float),
                          height, cudaMemcpyDeviceToDevice));

    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid(helpers::ceil_div(width, TILE_DIM), helpers::ceil_div(height, TILE_DIM));

    cudaEvent_t t0, t1;
    CUDA_TRY(cudaEventCreate(&t0));
    CUDA_TRY(cudaEventCreate(&t1));
    float ms_naive = 0, ms_tiled = 0;

    CUDA_TRY(cudaEventRecord(t0));
    transpose_naive<<<grid, block>>>(d_out, d_in, width, height);
    CUDA_TRY(cudaEventRecord(t1));
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaEventElapsedTime(&ms_naive, t0, t1));

    CUDA_TRY(cudaEventRecord(t0));
    transpose_tiled<<<grid, block>>>(d_out, d_in, width, height);
    CUDA_TRY(cudaEventRecord(t1));
    CUDA_TRY_LAUNCH();
    CUDA_TRY(cudaEventElapsedTime(&ms_tiled, t0, t1));

    CUDA_TRY(cudaMemcpy(h_out.data(), d_out, width * height * sizeof(float),
                        cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            if (h_out[x * height + y] != h_in[y * width + x]) ++errors;

    std::printf("naive %.3f ms, tiled %.3f ms, %d errors\n", ms_naive, ms_tiled, errors);
    CUDA_TRY(cudaEventDestroy(t0));
    CUDA_TRY(cudaEventDestroy(t1));
    CUDA_TRY(cudaFree(d_pitched));
    CUDA_TRY(cudaFree(d_in));
    CUDA_TRY(cudaFree(d_out));
    return errors != 0;
}
