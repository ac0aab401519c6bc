// Driver API: device, context, module, memory and launch calls.
#include <cuda.h>
// CHECK: #include <hip/hip_runtime.h>

int run(const char* path, float* host, size_t bytes) {
  CUdevice dev;
  // CHECK: hipDevice_t dev;
  CUmodule module;
  // CHECK: hipModule_t module;
  CUfunction fn;
  // CHECK: hipFunction_t fn;
  CUdeviceptr ptr;
  // CHECK: hipDeviceptr_t ptr;
  CUstream stream;
  // CHECK: hipStream_t stream;
  if (cuInit(0) != CUDA_SUCCESS) return 1;
  // CHECK: if (hipInit(0) != hipSuccess) return 1;
  cuDeviceGet(&dev, 0);
  // CHECK: hipDeviceGet(&dev, 0);
  int sms = 0;
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  // CHECK: hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev);
  cuModuleLoad(&module, path);
  // CHECK: hipModuleLoad(&module, path);
  cuModuleGetFunction(&fn, module, "saxpy");
  // CHECK: hipModuleGetFunction(&fn, module, "saxpy");
  cuMemAlloc(&ptr, bytes);
  // CHECK: hipMalloc(&ptr, bytes);
  cuMemcpyHtoD(ptr, host, bytes);
  // CHECK: hipMemcpyHtoD(ptr, host, bytes);
  void* args[] = {&ptr};
  cuLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, stream, args, nullptr);
  // CHECK: hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, stream, args, nullptr);
  CUresult res = cuStreamSynchronize(stream);
  // CHECK: hipError_t res = hipStreamSynchronize(stream);
  return res == CUDA_SUCCESS ? 0 : 1;
  // CHECK: return res == hipSuccess ? 0 : 1;
}
