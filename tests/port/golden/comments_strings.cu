// Names in comments, strings and character literals are left as they are; only whole
// identifiers are mapped, never parts of longer names.
#include <cuda_runtime.h>
// CHECK: #include <hip/hip_runtime.h>

/* cudaMalloc in a block comment
   spanning lines: cudaFree(p); */
static const char* kHelp = "call cudaMalloc(&p, n) first";
static const char* kRaw = R"x(cudaFree(p); // not a comment)x";
static const char kQuote = '"';
int my_cudaMalloc(void**, int);
int cudaMallocWrapper(void**, int);
// (declared here, so the project's own name: not reported as an unknown CUDA API)
void f(void** p) {
  int big = 1'000'000;  // a digit separator, not a character literal: cudaFree
  cudaMalloc(p, big); my_cudaMalloc(p, big); // cudaMalloc again
  // CHECK: hipMalloc(p, big); my_cudaMalloc(p, big); // cudaMalloc again
  printf("cudaFree: %s %c\n", kHelp, kQuote); cudaFree(*p);
  // CHECK: printf("cudaFree: %s %c\n", kHelp, kQuote); hipFree(*p);
}
