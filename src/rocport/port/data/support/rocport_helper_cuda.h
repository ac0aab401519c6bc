// rocport_helper_cuda.h: added by `rocport port` in place of the CUDA samples' helper_cuda.h,
// which the project includes from the CUDA SDK (it is not part of the project's tree).
// The same names, written over HIP: error checks (checkCudaErrors, getLastCudaError) and device
// selection (findCudaDevice, gpuGetMaxGflopsDeviceId, _ConvertSMVer2Cores).
#ifndef ROCPORT_HELPER_CUDA_H
#define ROCPORT_HELPER_CUDA_H

#include <hip/hip_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#include "rocport_helper_string.h"

#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

inline const char* rocport_error_name(hipError_t error) { return hipGetErrorName(error); }

// Statuses of other HIP libraries (hipBLAS, hipFFT, ...): printed as numbers.
template <typename T>
inline const char* rocport_error_name(T) {
  return "library error";
}

inline bool rocport_failed(hipError_t error) { return error != hipSuccess; }

template <typename T>
inline bool rocport_failed(T status) {
  return static_cast<int>(status) != 0;
}

template <typename T>
void rocport_check(T result, const char* call, const char* file, int line) {
  if (rocport_failed(result)) {
    fprintf(stderr, "HIP error at %s:%d code=%d(%s) \"%s\"\n", file, line,
            static_cast<int>(result), rocport_error_name(result), call);
    exit(EXIT_FAILURE);
  }
}

#define checkCudaErrors(val) rocport_check((val), #val, __FILE__, __LINE__)

inline void rocport_last_error(const char* message, const char* file, int line, bool fatal) {
  hipError_t error = hipGetLastError();
  if (error != hipSuccess) {
    fprintf(stderr, "%s(%i) : getLastCudaError() HIP error : %s : (%d) %s.\n", file, line,
            message, static_cast<int>(error), hipGetErrorString(error));
    if (fatal) exit(EXIT_FAILURE);
  }
}

#define getLastCudaError(msg) rocport_last_error((msg), __FILE__, __LINE__, true)
#define printLastCudaError(msg) rocport_last_error((msg), __FILE__, __LINE__, false)

// Cores per compute unit: CUDA counts cores per SM by compute capability; an AMD compute unit
// has 64 stream processors on every GCN and CDNA generation.
inline int _ConvertSMVer2Cores(int major, int minor) {
  (void)major;
  (void)minor;
  return 64;
}

inline int gpuDeviceInit(int device) {
  int count = 0;
  checkCudaErrors(hipGetDeviceCount(&count));
  if (count == 0 || device < 0 || device >= count) {
    fprintf(stderr, "gpuDeviceInit() device %d is not a valid GPU (%d found)\n", device, count);
    return -device;
  }
  checkCudaErrors(hipSetDevice(device));
  return device;
}

// The device with the most compute units times clock rate.
inline int gpuGetMaxGflopsDeviceId() {
  int count = 0;
  checkCudaErrors(hipGetDeviceCount(&count));
  int best = 0;
  unsigned long long best_rate = 0;
  for (int device = 0; device < count; ++device) {
    int units = 0, clock = 0;
    checkCudaErrors(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, device));
    checkCudaErrors(hipDeviceGetAttribute(&clock, hipDeviceAttributeClockRate, device));
    unsigned long long rate = static_cast<unsigned long long>(units) * clock;
    if (rate > best_rate) {
      best_rate = rate;
      best = device;
    }
  }
  return best;
}

// `-device=N` on the command line, else the fastest device.
inline int findCudaDevice(int argc, const char** argv) {
  int device = 0;
  if (checkCmdLineFlag(argc, argv, "device")) {
    device = getCmdLineArgumentInt(argc, argv, "device=");
    if (device < 0) {
      fprintf(stderr, "Invalid command line parameter\n");
      exit(EXIT_FAILURE);
    }
    device = gpuDeviceInit(device);
    if (device < 0) exit(EXIT_FAILURE);
  } else {
    device = gpuGetMaxGflopsDeviceId();
    checkCudaErrors(hipSetDevice(device));
  }
  return device;
}

inline int findCudaDevice(int argc, char** argv) {
  return findCudaDevice(argc, const_cast<const char**>(argv));
}

inline bool checkCudaCapabilities(int major, int minor) {
  (void)major;
  (void)minor;
  return true;  // compute capabilities are NVIDIA's; an AMD GPU is taken as able
}

#endif  // ROCPORT_HELPER_CUDA_H
