// Overlapping copies and kernels with several non-blocking streams, timed with events.
// The input is split into chunks; each stream copies its chunk in (pinned memory, so the copy
// is asynchronous), scales it, and copies it back. A final stream waits on the others' events.
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

static void check(cudaError_t err, const char* what, const char* file, int line) {
    if (err != cudaSuccess) {
        std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, what, cudaGetErrorString(err),
                     cudaGetErrorName(err));
        std::exit(EXIT_FAILURE);
    }
}
#define CHECK(x) check((x), #x, __FILE__, __LINE__)

__global__ void scale(float* data, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * factor + 1.0f;
}

int main() {
    const int kStreams = 4;
    const int n = 1 << 24;
    const int chunk = n / kStreams;
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);

    float* h_data = nullptr;
    CHECK(cudaMallocHost(&h_data, bytes));  // pinned: needed for truly async cudaMemcpyAsync
    for (int i = 0; i < n; ++i) h_data[i] = static_cast<float>(i % 100);

    float* d_data = nullptr;
    CHECK(cudaMalloc(&d_data, bytes));

    cudaStream_t streams[kStreams];
    cudaEvent_t done[kStreams];
    for (int s = 0; s < kStreams; ++s) {
        CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
    }
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    CHECK(cudaEventRecord(start, streams[0]));
    for (int s = 0; s < kStreams; ++s) {
        if (s > 0) CHECK(cudaStreamWaitEvent(streams[s], start, 0));
        const size_t offset = static_cast<size_t>(s) * chunk;
        CHECK(cudaMemcpyAsync(d_data + offset, h_data + offset, chunk * sizeof(float),
                              cudaMemcpyHostToDevice, streams[s]));
        scale<<<(chunk + 255) / 256, 256, 0, streams[s]>>>(d_data + offset, 2.0f, chunk);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_data + offset, d_data + offset, chunk * sizeof(float),
                              cudaMemcpyDeviceToHost, streams[s]));
        CHECK(cudaEventRecord(done[s], streams[s]));
    }
    for (int s = 1; s < kStreams; ++s) CHECK(cudaStreamWaitEvent(streams[0], done[s], 0));
    CHECK(cudaEventRecord(stop, streams[0]));
    CHECK(cudaEventSynchronize(stop));

    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("%d streams: %.3f ms, %.2f GB/s (copy in + out)\n", kStreams, ms,
                2.0 * bytes / (ms * 1.0e6));

    int errors = 0;
    for (int i = 0; i < n; ++i) {
        if (h_data[i] != static_cast<float>(i % 100) * 2.0f + 1.0f) ++errors;
    }
    if (cudaStreamQuery(streams[0]) != cudaSuccess) std::printf("stream 0 still busy?\n");

    for (int s = 0; s < kStreams; ++s) {
        CHECK(cudaStreamDestroy(streams[s]));
        CHECK(cudaEventDestroy(done[s]));
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_data));
    CHECK(cudaFreeHost(h_data));
    std::printf("%s (%d errors)\n", errors ? "FAILED" : "ok", errors);
    return errors != 0;
}
