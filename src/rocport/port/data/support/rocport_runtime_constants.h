// rocport_runtime_constants.h: added by `rocport port` for CUDA runtime constants that HIP does
// not name, although the HIP calls they are passed to take the same values.
#ifndef ROCPORT_RUNTIME_CONSTANTS_H
#define ROCPORT_RUNTIME_CONSTANTS_H

// cudaSharedCarveout: the percentage of on-chip memory preferred as shared memory, as passed
// with hipFuncAttributePreferredSharedMemoryCarveout (a hint; AMD GPUs have fixed LDS).
enum rocport_shared_carveout {
  cudaSharedmemCarveoutDefault = -1,
  cudaSharedmemCarveoutMaxShared = 100,
  cudaSharedmemCarveoutMaxL1 = 0,
};

#endif  // ROCPORT_RUNTIME_CONSTANTS_H
