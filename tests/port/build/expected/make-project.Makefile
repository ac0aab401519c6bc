# A small CUDA project built with nvcc: a block reduction kernel plus a cuBLAS check.
ROCM_PATH ?= /opt/rocm
NVCC ?= $(ROCM_PATH)/bin/hipcc

NVCCFLAGS := -O2 -std=c++17 --offload-arch=gfx90a --offload-arch=gfx942 -fPIC
CXXFLAGS := -O2 -std=c++17 -fPIC -I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__
LDFLAGS := -L$(ROCM_PATH)/lib
LDLIBS := -lamdhip64 -lhipblas

reduce: main.o reduce.o
	$(NVCC) -o $@ $^ $(LDFLAGS) $(LDLIBS)

reduce.o: reduce.cu reduce.cuh
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

main.o: main.cpp reduce.cuh
	$(CXX) $(CXXFLAGS) -c $< -o $@

clean:
	rm -f reduce *.o

.PHONY: clean
