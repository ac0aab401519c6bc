// Random numbers with cuRAND, both APIs:
//  - host API: a generator fills device memory with uniform and normal numbers;
//  - device API: each thread owns a curandState and estimates pi by Monte Carlo.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#define CUDA_CHECK(x)                                                                 \
    do {                                                                              \
        cudaError_t err = (x);                                                        \
        if (err != cudaSuccess) {                                                     \
            printf("CUDA error \"%s\" at %s:%d\n", cudaGetErrorString(err), __FILE__, \
                   __LINE__);                                                         \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

#define CURAND_CHECK(x)                                                               \
    do {                                                                              \
        curandStatus_t st = (x);                                                      \
        if (st != CURAND_STATUS_SUCCESS) {                                            \
            printf("cuRAND error %d at %s:%d\n", static_cast<int>(st), __FILE__,      \
                   __LINE__);                                                         \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

__global__ void setup_states(curandState* states, unsigned long long seed) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    // same seed, different subsequence per thread: independent streams
    curand_init(seed, id, 0, &states[id]);
}

__global__ void count_inside(curandState* states, int samples, unsigned long long* inside) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    unsigned long long hits = 0;
    for (int i = 0; i < samples; ++i) {
        float x = curand_uniform(&local);
        float y = curand_uniform(&local);
        if (x * x + y * y <= 1.0f) ++hits;
    }
    states[id] = local;
    atomicAdd(inside, hits);
}

__global__ void gaussian_noise(curandStatePhilox4_32_10_t* states, float* out, int n) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= n) return;
    curandStatePhilox4_32_10_t s;
    curand_init(1234ULL, id, 0, &s);
    out[id] = curand_normal(&s);
    states[id] = s;
}

int main() {
    const size_t n = 1 << 20;
    float* d_uniform;
    float* d_normal;
    CUDA_CHECK(cudaMalloc(&d_uniform, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_normal, n * sizeof(float)));

    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 42ULL));
    CURAND_CHECK(curandGenerateUniform(gen, d_uniform, n));
    CURAND_CHECK(curandGenerateNormal(gen, d_normal, n, 0.0f, 1.0f));

    std::vector<float> h(n);
    CUDA_CHECK(cudaMemcpy(h.data(), d_uniform, n * sizeof(float), cudaMemcpyDeviceToHost));
    double mean = 0.0;
    for (float v : h) mean += v;
    printf("uniform mean %.4f (expected 0.5)\n", mean / n);

    const int blocks = 64, threads = 256, samples = 4096;
    curandState* d_states;
    unsigned long long* d_inside;
    CUDA_CHECK(cudaMalloc(&d_states, blocks * threads * sizeof(curandState)));
    CUDA_CHECK(cudaMalloc(&d_inside, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(d_inside, 0, sizeof(unsigned long long)));
    setup_states<<<blocks, threads>>>(d_states, 2024ULL);
    count_inside<<<blocks, threads>>>(d_states, samples, d_inside);
    CUDA_CHECK(cudaGetLastError());

    curandStatePhilox4_32_10_t* d_philox;
    CUDA_CHECK(cudaMalloc(&d_philox, n * sizeof(curandStatePhilox4_32_10_t)));
    gaussian_noise<<<(n + 255) / 256, 256>>>(d_philox, d_normal, static_cast<int>(n));
    CUDA_CHECK(cudaGetLastError());

    unsigned long long inside = 0;
    CUDA_CHECK(cudaMemcpy(&inside, d_inside, sizeof(inside), cudaMemcpyDeviceToHost));
    const double total = static_cast<double>(blocks) * threads * samples;
    printf("pi ~ %.5f\n", 4.0 * inside / total);

    CURAND_CHECK(curandDestroyGenerator(gen));
    CUDA_CHECK(cudaFree(d_uniform));
    CUDA_CHECK(cudaFree(d_normal));
    CUDA_CHECK(cudaFree(d_states));
    CUDA_CHECK(cudaFree(d_inside));
    CUDA_CHECK(cudaFree(d_philox));
    return 0;
}
