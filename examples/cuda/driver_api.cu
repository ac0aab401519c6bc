// The CUDA driver API end to end: initialise, query the device, take the primary context,
// load a compiled module (a .cubin/.fatbin/.ptx file given on the command line, which must
// define extern "C" __global__ void saxpy(float a, const float* x, float* y, int n)), allocate,
// copy, launch with cuLaunchKernel and read the result back. The saxpy kernel below is the one
// the module is expected to contain; build it with `nvcc -cubin -o saxpy.cubin driver_api.cu`.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda.h>

#define CU_CHECK(call)                                                                 \
    do {                                                                               \
        CUresult res_ = (call);                                                        \
        if (res_ != CUDA_SUCCESS) {                                                    \
            const char* name_ = nullptr;                                               \
            const char* text_ = nullptr;                                               \
            cuGetErrorName(res_, &name_);                                              \
            cuGetErrorString(res_, &text_);                                            \
            fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,         \
                    name_ ? name_ : "?", text_ ? text_ : "?");                          \
            exit(EXIT_FAILURE);                                                        \
        }                                                                              \
    } while (0)

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
    CU_CHECK(cuInit(0));
    int count = 0;
    CU_CHECK(cuDeviceGetCount(&count));
    if (count == 0) {
        printf("no CUDA device\n");
        return 0;
    }
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    char name[256];
    CU_CHECK(cuDeviceGetName(name, sizeof(name), dev));
    int sms = 0, major = 0, minor = 0;
    CU_CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    size_t total_mem = 0;
    CU_CHECK(cuDeviceTotalMem(&total_mem, dev));
    printf("%s: %d SMs, compute %d.%d, %zu MiB\n", name, sms, major, minor, total_mem >> 20);

    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    if (argc < 2) {
        printf("usage: %s MODULE (a cubin/fatbin/ptx with saxpy)\n", argv[0]);
        CU_CHECK(cuDevicePrimaryCtxRelease(dev));
        return 0;
    }
    CUmodule module;
    CUfunction kernel;
    CU_CHECK(cuModuleLoad(&module, argv[1]));
    CU_CHECK(cuModuleGetFunction(&kernel, module, "saxpy"));

    int n = 1 << 20;
    float a = 2.0f;
    std::vector<float> h_x(n, 1.0f), h_y(n, 3.0f);
    CUdeviceptr d_x, d_y;
    CU_CHECK(cuMemAlloc(&d_x, n * sizeof(float)));
    CU_CHECK(cuMemAlloc(&d_y, n * sizeof(float)));
    CU_CHECK(cuMemcpyHtoD(d_x, h_x.data(), n * sizeof(float)));
    CU_CHECK(cuMemcpyHtoD(d_y, h_y.data(), n * sizeof(float)));

    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    void* params[] = {&a, &d_x, &d_y, &n};
    const unsigned threads = 256, blocks = (n + threads - 1) / threads;
    CU_CHECK(cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream, params, nullptr));
    CU_CHECK(cuStreamSynchronize(stream));
    CU_CHECK(cuMemcpyDtoH(h_y.data(), d_y, n * sizeof(float)));

    int errors = 0;
    for (float v : h_y)
        if (v != 5.0f) ++errors;
    printf("saxpy: %d errors\n", errors);
    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuMemFree(d_x));
    CU_CHECK(cuMemFree(d_y));
    CU_CHECK(cuModuleUnload(module));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return errors != 0;
}
