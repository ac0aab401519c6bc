// rocport_nvtx_naming.h: added by `rocport port` for NVTX's resource-naming calls
// (nvtxNameCudaStreamA, nvtxNameCudaEventA, nvtxNameCudaDeviceA, nvtxNameCuStreamA,
// nvtxNameCuEventA, nvtxNameCuDeviceA, nvtxNameCuContextA, nvtxNameOsThreadA, their W forms and
// the unsuffixed macros), which roctracer's rocTX (roctracer/roctx.h: marks and ranges only)
// has no counterpart of. Naming a stream, event, device, context or thread changes only what a
// profiler displays, so these functions take NVTX's arguments with the HIP types and do nothing:
// the names are dropped. (rocprofiler-sdk's roctxNameHipStream, in newer ROCm, takes
// (name, stream) and needs another library, librocprofiler-sdk-roctx.)
// Declarations as in NVTX 3 (CUDA 13.0 nvtx3/nvToolsExtCudaRt.h, nvToolsExtCuda.h,
// nvToolsExt.h). The parentheses around each name keep a project's own function-like macro of
// that name from expanding here.
#ifndef ROCPORT_NVTX_NAMING_H
#define ROCPORT_NVTX_NAMING_H

#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

// CUDA runtime resources (nvToolsExtCudaRt.h)
static inline void(nvtxNameCudaDeviceA)(int device, const char* name) {
  (void)device, (void)name;
}
static inline void(nvtxNameCudaDeviceW)(int device, const wchar_t* name) {
  (void)device, (void)name;
}
static inline void(nvtxNameCudaStreamA)(hipStream_t stream, const char* name) {
  (void)stream, (void)name;
}
static inline void(nvtxNameCudaStreamW)(hipStream_t stream, const wchar_t* name) {
  (void)stream, (void)name;
}
static inline void(nvtxNameCudaEventA)(hipEvent_t event, const char* name) {
  (void)event, (void)name;
}
static inline void(nvtxNameCudaEventW)(hipEvent_t event, const wchar_t* name) {
  (void)event, (void)name;
}

// CUDA driver resources (nvToolsExtCuda.h): CUdevice, CUcontext, CUstream, CUevent as HIP types
static inline void(nvtxNameCuDeviceA)(hipDevice_t device, const char* name) {
  (void)device, (void)name;
}
static inline void(nvtxNameCuDeviceW)(hipDevice_t device, const wchar_t* name) {
  (void)device, (void)name;
}
static inline void(nvtxNameCuContextA)(hipCtx_t context, const char* name) {
  (void)context, (void)name;
}
static inline void(nvtxNameCuContextW)(hipCtx_t context, const wchar_t* name) {
  (void)context, (void)name;
}
static inline void(nvtxNameCuStreamA)(hipStream_t stream, const char* name) {
  (void)stream, (void)name;
}
static inline void(nvtxNameCuStreamW)(hipStream_t stream, const wchar_t* name) {
  (void)stream, (void)name;
}
static inline void(nvtxNameCuEventA)(hipEvent_t event, const char* name) {
  (void)event, (void)name;
}
static inline void(nvtxNameCuEventW)(hipEvent_t event, const wchar_t* name) {
  (void)event, (void)name;
}

// operating-system threads (nvToolsExt.h)
static inline void(nvtxNameOsThreadA)(uint32_t threadId, const char* name) {
  (void)threadId, (void)name;
}
static inline void(nvtxNameOsThreadW)(uint32_t threadId, const wchar_t* name) {
  (void)threadId, (void)name;
}

// the unsuffixed names, as NVTX defines them (W with UNICODE, else A)
#ifdef UNICODE
#define nvtxNameCudaDevice nvtxNameCudaDeviceW
#define nvtxNameCudaStream nvtxNameCudaStreamW
#define nvtxNameCudaEvent nvtxNameCudaEventW
#define nvtxNameCuDevice nvtxNameCuDeviceW
#define nvtxNameCuContext nvtxNameCuContextW
#define nvtxNameCuStream nvtxNameCuStreamW
#define nvtxNameCuEvent nvtxNameCuEventW
#define nvtxNameOsThread nvtxNameOsThreadW
#else
#define nvtxNameCudaDevice nvtxNameCudaDeviceA
#define nvtxNameCudaStream nvtxNameCudaStreamA
#define nvtxNameCudaEvent nvtxNameCudaEventA
#define nvtxNameCuDevice nvtxNameCuDeviceA
#define nvtxNameCuContext nvtxNameCuContextA
#define nvtxNameCuStream nvtxNameCuStreamA
#define nvtxNameCuEvent nvtxNameCuEventA
#define nvtxNameOsThread nvtxNameOsThreadA
#endif

#endif  // ROCPORT_NVTX_NAMING_H
