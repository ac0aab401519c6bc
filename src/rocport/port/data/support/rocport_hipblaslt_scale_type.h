// rocport_hipblaslt_scale_type.h: added by `rocport port` for cuBLASLt's
// CUBLASLT_MATMUL_DESC_SCALE_TYPE (the type of alpha and beta), which hipBLASLt has no attribute
// for: hipblasLtMatmulDescCreate(desc, computeType, scaleType) fixes a descriptor's scale type
// (hipblaslt/hipblaslt.h, ROCm 6.4), and nothing reads or changes it later.
//
// This header records the scale type of each descriptor that hipblasLtMatmulDescCreate creates in
// the files that include it (the macros at the end route those calls, and
// hipblasLtMatmulDescDestroy, through the recording wrappers), and overloads
// hipblasLtMatmulDescSetAttribute/GetAttribute for CUBLASLT_MATMUL_DESC_SCALE_TYPE:
// - setting it succeeds, and changes nothing, only when it asks for the type the descriptor was
//   created with; another type returns HIPBLAS_STATUS_NOT_SUPPORTED, because hipBLASLt would go on
//   with the created type and the results would differ from CUDA's;
// - reading it gives the created type;
// - a descriptor that was not created through this header (in a file that does not include it)
//   returns HIPBLAS_STATUS_NOT_SUPPORTED: its scale type is unknown. (A descriptor that is
//   destroyed in such a file keeps its record, which a later descriptor at the same address,
//   created in such a file too, would be taken for: create and destroy descriptors where this
//   header is included.)
// Sizes and null arguments are checked as cuBLASLt documents (an int32_t attribute).
#ifndef ROCPORT_HIPBLASLT_SCALE_TYPE_H
#define ROCPORT_HIPBLASLT_SCALE_TYPE_H

#include <hipblaslt/hipblaslt.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

namespace rocport_hipblaslt {

inline std::mutex& lock() {
  static std::mutex mutex;
  return mutex;
}

inline std::map<hipblasLtMatmulDesc_t, hipDataType>& scale_types() {  // call with lock() held
  static std::map<hipblasLtMatmulDesc_t, hipDataType> types;
  return types;
}

inline hipblasStatus_t matmul_desc_create(hipblasLtMatmulDesc_t* desc,
                                          hipblasComputeType_t compute_type,
                                          hipDataType scale_type) {
  hipblasStatus_t status = hipblasLtMatmulDescCreate(desc, compute_type, scale_type);
  if (status == HIPBLAS_STATUS_SUCCESS) {
    std::lock_guard<std::mutex> held(lock());
    scale_types()[*desc] = scale_type;
  }
  return status;
}

inline hipblasStatus_t matmul_desc_destroy(hipblasLtMatmulDesc_t desc) {
  {
    std::lock_guard<std::mutex> held(lock());
    scale_types().erase(desc);
  }
  return hipblasLtMatmulDescDestroy(desc);
}

// The scale type that ``desc`` was created with; false for a descriptor this header did not see.
inline bool created_scale_type(hipblasLtMatmulDesc_t desc, int32_t* type) {
  std::lock_guard<std::mutex> held(lock());
  auto found = scale_types().find(desc);
  if (found == scale_types().end()) return false;
  *type = static_cast<int32_t>(found->second);
  return true;
}

}  // namespace rocport_hipblaslt

// A type of its own, so that the overloads below are chosen; the value is none of hipBLASLt's
// attributes, so that a cast to hipblasLtMatmulDescAttributes_t, which bypasses them, is refused
// by hipBLASLt (HIPBLAS_STATUS_INVALID_VALUE) rather than taken for another attribute.
enum rocport_cublasLtMatmulDescScaleType : int32_t { CUBLASLT_MATMUL_DESC_SCALE_TYPE = 0x10000 };

inline hipblasStatus_t hipblasLtMatmulDescSetAttribute(hipblasLtMatmulDesc_t desc,
                                                       rocport_cublasLtMatmulDescScaleType,
                                                       const void* buf, size_t sizeInBytes) {
  if (desc == nullptr || buf == nullptr || sizeInBytes != sizeof(int32_t)) {
    return HIPBLAS_STATUS_INVALID_VALUE;
  }
  int32_t requested;
  std::memcpy(&requested, buf, sizeof requested);
  int32_t created;
  if (!rocport_hipblaslt::created_scale_type(desc, &created) || requested != created) {
    return HIPBLAS_STATUS_NOT_SUPPORTED;
  }
  return HIPBLAS_STATUS_SUCCESS;
}

inline hipblasStatus_t hipblasLtMatmulDescGetAttribute(hipblasLtMatmulDesc_t desc,
                                                       rocport_cublasLtMatmulDescScaleType,
                                                       void* buf, size_t sizeInBytes,
                                                       size_t* sizeWritten) {
  if (desc == nullptr || (sizeInBytes == 0 && sizeWritten == nullptr) ||
      (sizeInBytes != 0 && (buf == nullptr || sizeInBytes != sizeof(int32_t)))) {
    return HIPBLAS_STATUS_INVALID_VALUE;
  }
  int32_t created;
  if (!rocport_hipblaslt::created_scale_type(desc, &created)) return HIPBLAS_STATUS_NOT_SUPPORTED;
  if (sizeWritten != nullptr) *sizeWritten = sizeof created;
  if (sizeInBytes != 0) std::memcpy(buf, &created, sizeof created);
  return HIPBLAS_STATUS_SUCCESS;
}

// From here on, descriptors are created and destroyed through the recording wrappers.
#define hipblasLtMatmulDescCreate rocport_hipblaslt::matmul_desc_create
#define hipblasLtMatmulDescDestroy rocport_hipblaslt::matmul_desc_destroy

#endif  // ROCPORT_HIPBLASLT_SCALE_TYPE_H
