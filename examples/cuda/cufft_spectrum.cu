// FFTs with cuFFT: a batched complex-to-complex round trip (forward, inverse, normalise) and
// a real-to-complex transform whose peak bin must match the frequency of the input signal.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <cufft.h>

#define CUDA_CHECK(x)                                                                   \
    do {                                                                                \
        cudaError_t e = (x);                                                            \
        if (e != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d CUDA: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

#define CUFFT_CHECK(x)                                                                  \
    do {                                                                                \
        cufftResult r = (x);                                                            \
        if (r != CUFFT_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d cuFFT error %d\n", __FILE__, __LINE__, (int)r);      \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

__global__ void normalise(cufftComplex* data, int n, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i].x *= scale;
        data[i].y *= scale;
    }
}

__global__ void magnitude(const cufftComplex* spectrum, float* mag, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < bins) mag[i] = hypotf(spectrum[i].x, spectrum[i].y);
}

int main() {
    const int n = 1024, batch = 8;
    const double pi = 3.14159265358979323846;

    // 1. C2C round trip
    std::vector<cufftComplex> h_signal(n * batch);
    for (int b = 0; b < batch; ++b)
        for (int i = 0; i < n; ++i) {
            h_signal[b * n + i].x = static_cast<float>(std::sin(2 * pi * (b + 1) * i / n));
            h_signal[b * n + i].y = 0.0f;
        }
    cufftComplex* d_signal;
    CUDA_CHECK(cudaMalloc(&d_signal, sizeof(cufftComplex) * n * batch));
    CUDA_CHECK(cudaMemcpy(d_signal, h_signal.data(), sizeof(cufftComplex) * n * batch,
                          cudaMemcpyHostToDevice));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    cufftHandle plan_c2c;
    CUFFT_CHECK(cufftPlan1d(&plan_c2c, n, CUFFT_C2C, batch));
    CUFFT_CHECK(cufftSetStream(plan_c2c, stream));
    CUFFT_CHECK(cufftExecC2C(plan_c2c, d_signal, d_signal, CUFFT_FORWARD));
    CUFFT_CHECK(cufftExecC2C(plan_c2c, d_signal, d_signal, CUFFT_INVERSE));
    normalise<<<(n * batch + 255) / 256, 256, 0, stream>>>(d_signal, n * batch, 1.0f / n);
    CUDA_CHECK(cudaGetLastError());
    std::vector<cufftComplex> h_back(n * batch);
    CUDA_CHECK(cudaMemcpyAsync(h_back.data(), d_signal, sizeof(cufftComplex) * n * batch,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double err = 0.0;
    for (int i = 0; i < n * batch; ++i) err = fmax(err, fabs(h_back[i].x - h_signal[i].x));
    printf("C2C round trip max error %.3g\n", err);

    // 2. R2C: a 50-cycle cosine peaks in bin 50
    const int bins = n / 2 + 1;
    std::vector<cufftReal> h_real(n);
    for (int i = 0; i < n; ++i) h_real[i] = static_cast<cufftReal>(std::cos(2 * pi * 50 * i / n));
    cufftReal* d_real;
    cufftComplex* d_spectrum;
    float* d_mag;
    CUDA_CHECK(cudaMalloc(&d_real, sizeof(cufftReal) * n));
    CUDA_CHECK(cudaMalloc(&d_spectrum, sizeof(cufftComplex) * bins));
    CUDA_CHECK(cudaMalloc(&d_mag, sizeof(float) * bins));
    CUDA_CHECK(cudaMemcpy(d_real, h_real.data(), sizeof(cufftReal) * n, cudaMemcpyHostToDevice));
    cufftHandle plan_r2c;
    CUFFT_CHECK(cufftPlan1d(&plan_r2c, n, CUFFT_R2C, 1));
    CUFFT_CHECK(cufftExecR2C(plan_r2c, d_real, d_spectrum));
    magnitude<<<(bins + 127) / 128, 128>>>(d_spectrum, d_mag, bins);
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> h_mag(bins);
    CUDA_CHECK(cudaMemcpy(h_mag.data(), d_mag, sizeof(float) * bins, cudaMemcpyDeviceToHost));
    int peak = 0;
    for (int i = 1; i < bins; ++i)
        if (h_mag[i] > h_mag[peak]) peak = i;
    printf("R2C peak at bin %d (expected 50)\n", peak);

    CUFFT_CHECK(cufftDestroy(plan_c2c));
    CUFFT_CHECK(cufftDestroy(plan_r2c));
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(d_signal));
    CUDA_CHECK(cudaFree(d_real));
    CUDA_CHECK(cudaFree(d_spectrum));
    CUDA_CHECK(cudaFree(d_mag));
    return (err < 1e-4 && peak == 50) ? 0 : 1;
}
