// Block-wide sum with warp shuffles, moved halfway to AMD's 64-lane wavefronts.
//
// The lane id was changed to `warpSize`, but the shuffle tree and the warp id still assume
// 32-lane warps. On NVIDIA GPUs (warpSize 32) both agree and the sum is right. On a CDNA GPU
// (64 lanes) lane 0 of each wavefront stores the sum of lanes 0-31 only, and the block sum
// misses half of the values. Code that used 32 everywhere would compute the right sum there
// (each wavefront holding two 32-lane warps); it is the mix that breaks. `rocport scan`
// reports the kernel's mixed warp model; `rocport scan --fix` moves every 32-lane spot of it to
// `warpSize` together.
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
    int lane = threadIdx.x % warpSize;
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
