// rocport_simd_intrinsics.h compiled for the host, against CUDA's results in a fixture written
// by simd_check.cu --fixture on an NVIDIA GPU (tests/port/fixtures/simd_intrinsics_cuda.txt).
// Usage: simd_host_check FIXTURE; prints "N pairs x 82 functions: M differ", exit 0 when none.
//
// Builds three ways (tests/port/test_simd_intrinsics.py): as plain C++ with
// -DROCPORT_SIMD_PLAIN_CXX (any C++11 compiler); as HIP with hipcc (-x hip --offload-arch=...),
// which compiles the device side too; with g++ and HIP-CPU's headers.
#ifdef ROCPORT_SIMD_PLAIN_CXX
#define ROCPORT_SIMD_STANDALONE
#define __host__
#define __device__
#endif
#include "rocport_simd_intrinsics.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "simd_functions.h"

#ifndef ROCPORT_SIMD_PLAIN_CXX
// the device side must compile too: every function called from a kernel
__global__ void rocport_simd_kernel(unsigned int* out, unsigned int a, unsigned int b) {
  int f = 0;
#define U(n) out[f++] = n(a);
#define B(n) out[f++] = n(a, b);
  SIMD_UNARY(U) SIMD_BINARY(B)
#undef U
#undef B
}
#endif


static unsigned int eval(const std::string& name, unsigned int a, unsigned int b, bool* known) {
  *known = true;
#define U(n) \
  if (name == #n) return n(a);
#define B(n) \
  if (name == #n) return n(a, b);
  SIMD_UNARY(U) SIMD_BINARY(B)
#undef U
#undef B
  *known = false;
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FIXTURE\n", argv[0]);
    return 2;
  }
  FILE* fp = std::fopen(argv[1], "r");
  if (!fp) {
    std::perror(argv[1]);
    return 2;
  }
  std::vector<std::string> names;
  char buf[8192];
  long pairs = 0, differ = 0;
  while (std::fgets(buf, sizeof buf, fp)) {
    if (buf[0] == '#' || buf[0] == '\n') continue;
    if (!std::strncmp(buf, "names ", 6)) {
      for (char* t = std::strtok(buf + 6, " \n"); t; t = std::strtok(nullptr, " \n")) {
        names.push_back(t);
      }
      continue;
    }
    char* end = buf;
    unsigned int a = static_cast<unsigned int>(std::strtoul(end, &end, 16));
    unsigned int b = static_cast<unsigned int>(std::strtoul(end, &end, 16));
    ++pairs;
    for (const std::string& name : names) {
      unsigned int want = static_cast<unsigned int>(std::strtoul(end, &end, 16));
      bool known = false;
      unsigned int got = eval(name, a, b, &known);
      if (!known) {
        std::printf("unknown function %s\n", name.c_str());
        return 2;
      }
      if (got != want) {
        if (differ++ < 20) {
          std::printf("%s(%08x, %08x): cuda %08x here %08x\n", name.c_str(), a, b, want, got);
        }
      }
    }
  }
  std::fclose(fp);
  std::printf("%ld pairs x %zu functions: %ld differ\n", pairs, names.size(), differ);
  return (differ || pairs == 0 || names.size() != SIMD_COUNT) ? 1 : 0;
}
