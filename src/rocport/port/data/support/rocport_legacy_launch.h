// rocport_legacy_launch.h: added by `rocport port` for CUDA's legacy driver launch API
// (cuParamSetSize, cuParamSetv, cuParamSeti, cuParamSetf, cuFuncSetBlockShape,
// cuFuncSetSharedSize, cuLaunch, cuLaunchGrid, cuLaunchGridAsync; deprecated since CUDA 4.0),
// which HIP does not have. Each function keeps its parameter buffer, block shape and dynamic
// shared memory size; a launch passes them to hipModuleLaunchKernel as one argument buffer
// (HIP_LAUNCH_PARAM_BUFFER_POINTER), laid out at the offsets the program gave, as in CUDA.
#ifndef ROCPORT_LEGACY_LAUNCH_H
#define ROCPORT_LEGACY_LAUNCH_H

#include <hip/hip_runtime.h>

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace rocport_legacy {

struct Launch {
  std::vector<unsigned char> params;
  unsigned int block[3] = {1, 1, 1};
  unsigned int shared_bytes = 0;
};

inline std::mutex& lock() {
  static std::mutex mutex;
  return mutex;
}

inline Launch& launch(hipFunction_t f) {  // call with lock() held
  static std::map<hipFunction_t, Launch> launches;
  return launches[f];
}

inline hipError_t set_bytes(hipFunction_t f, int offset, const void* bytes, size_t size) {
  if (f == nullptr || offset < 0 || (bytes == nullptr && size > 0)) return hipErrorInvalidValue;
  std::lock_guard<std::mutex> held(lock());
  std::vector<unsigned char>& params = launch(f).params;
  if (params.size() < static_cast<size_t>(offset) + size) params.resize(offset + size);
  if (size > 0) std::memcpy(params.data() + offset, bytes, size);
  return hipSuccess;
}

}  // namespace rocport_legacy

inline hipError_t cuParamSetSize(hipFunction_t f, unsigned int numbytes) {
  if (f == nullptr) return hipErrorInvalidValue;
  std::lock_guard<std::mutex> held(rocport_legacy::lock());
  rocport_legacy::launch(f).params.resize(numbytes);
  return hipSuccess;
}

inline hipError_t cuParamSetv(hipFunction_t f, int offset, void* ptr, unsigned int numbytes) {
  return rocport_legacy::set_bytes(f, offset, ptr, numbytes);
}

inline hipError_t cuParamSeti(hipFunction_t f, int offset, unsigned int value) {
  return rocport_legacy::set_bytes(f, offset, &value, sizeof value);
}

inline hipError_t cuParamSetf(hipFunction_t f, int offset, float value) {
  return rocport_legacy::set_bytes(f, offset, &value, sizeof value);
}

inline hipError_t cuFuncSetBlockShape(hipFunction_t f, int x, int y, int z) {
  if (f == nullptr || x <= 0 || y <= 0 || z <= 0) return hipErrorInvalidValue;
  std::lock_guard<std::mutex> held(rocport_legacy::lock());
  rocport_legacy::Launch& l = rocport_legacy::launch(f);
  l.block[0] = x;
  l.block[1] = y;
  l.block[2] = z;
  return hipSuccess;
}

inline hipError_t cuFuncSetSharedSize(hipFunction_t f, unsigned int bytes) {
  if (f == nullptr) return hipErrorInvalidValue;
  std::lock_guard<std::mutex> held(rocport_legacy::lock());
  rocport_legacy::launch(f).shared_bytes = bytes;
  return hipSuccess;
}

inline hipError_t cuLaunchGridAsync(hipFunction_t f, int grid_width, int grid_height,
                                    hipStream_t stream) {
  if (f == nullptr || grid_width <= 0 || grid_height <= 0) return hipErrorInvalidValue;
  rocport_legacy::Launch l;
  {
    std::lock_guard<std::mutex> held(rocport_legacy::lock());
    l = rocport_legacy::launch(f);
  }
  size_t size = l.params.size();
  void* config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, l.params.data(),
                    HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(f, grid_width, grid_height, 1, l.block[0], l.block[1], l.block[2],
                               l.shared_bytes, stream, nullptr, size > 0 ? config : nullptr);
}

inline hipError_t cuLaunchGrid(hipFunction_t f, int grid_width, int grid_height) {
  return cuLaunchGridAsync(f, grid_width, grid_height, nullptr);
}

inline hipError_t cuLaunch(hipFunction_t f) { return cuLaunchGridAsync(f, 1, 1, nullptr); }

#endif  // ROCPORT_LEGACY_LAUNCH_H
