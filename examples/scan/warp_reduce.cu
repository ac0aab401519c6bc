// Block-wide sum with warp shuffles, written for NVIDIA's 32-lane warps.
//
// It compiles for AMD GPUs after translation, and it is wrong there: a CDNA wavefront has 64
// lanes, so the shuffle tree below reduces each half of the wavefront separately, the lane and
// warp ids repeat, and the block sum misses half of the values. `rocport scan` reports every
// spot; `rocport scan --fix` rewrites them for any warp width.
#include <cstdio>
#include <cuda_runtime.h>

__inline__ __device__ float warp_reduce_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float partial[32];                 // one slot per warp (at most 1024 threads)
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;

    float v = tid < n ? in[tid] : 0.0f;
    v = warp_reduce_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();

    if (warp == 0) {
        v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
        v = warp_reduce_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

int main() {
    const int n = 1 << 20;
    float *in, *out;
    cudaMalloc(&in, n * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    cudaMemset(out, 0, sizeof(float));
    block_sum<<<(n + 255) / 256, 256>>>(in, out, n);
    cudaDeviceSynchronize();
    float sum = 0.0f;
    cudaMemcpy(&sum, out, sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("sum = %f\n", sum);
    cudaFree(in);
    cudaFree(out);
    return 0;
}
