// CUDA's SIMD intrinsics (__vadd4, __vsubss4, __vcmpeq2, __vsadu4, ...: 82 functions) against
// rocport's support header rocport_simd_intrinsics.h, bit for bit, on an NVIDIA GPU.
//
// The header's functions are compiled here inside namespace rp (ROCPORT_SIMD_STANDALONE leaves
// out its #include <hip/hip_runtime.h>), so that ::__vadd4 is CUDA's own and rp::__vadd4 the
// header's, both in the same kernel. Input sets: every pair of byte values in every byte lane;
// every halfword against 32 special halfwords, both ways round; all pairs of words made of the
// edge bytes 00 01 40 7f 80 81 fe ff; all pairs of words made of 16 edge halfwords; random
// pairs (2^N, --random-log2 N, default 28). Exit status 0 only when nothing differs.
//
// --fixture FILE also writes CUDA's results for 260 fixed pairs to FILE (the fixture that
// tests/port/test_simd_intrinsics.py checks the header against on a machine without a GPU,
// compiled for the host), after checking the header's host-compiled functions against them.
//
// On the lent GPU machine (see docs/benchmarks.md, "CUDA SIMD intrinsics"), from the repo root:
//   nvcc -std=c++17 -O2 -arch=sm_90 -I src/rocport/port/data/support -I tests/port/simd \
//     tests/port/simd/simd_check.cu -o /tmp/simd_check && /tmp/simd_check --fixture out.txt
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "simd_functions.h"

#define ROCPORT_SIMD_STANDALONE
namespace rp {
#include "rocport_simd_intrinsics.h"
}

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                   cudaGetErrorString(e_));                                               \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

static const char* const kNames[SIMD_COUNT] = {
#define NAME(n) #n,
    SIMD_UNARY(NAME) SIMD_BINARY(NAME)
#undef NAME
};

struct Mismatch {
  unsigned int seen, a, b, cuda, ours;
};

__host__ __device__ inline unsigned long long splitmix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__constant__ unsigned int kEdge8[8] = {0x00, 0x01, 0x40, 0x7f, 0x80, 0x81, 0xfe, 0xff};
__constant__ unsigned int kEdge16[16] = {0x0000, 0x0001, 0x0002, 0x00ff, 0x0100, 0x4000, 0x7ffe,
                                         0x7fff, 0x8000, 0x8001, 0x8080, 0xbfff, 0xc000, 0xff00,
                                         0xfffe, 0xffff};
__constant__ unsigned int kSpecial16[32] = {
    0x0000, 0x0001, 0x0002, 0x0003, 0x007f, 0x0080, 0x00ff, 0x0100, 0x3fff, 0x4000, 0x4001,
    0x7ffd, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0x8002, 0x8080, 0x8765, 0xbfff, 0xc000, 0xc001,
    0xff00, 0xff7f, 0xff80, 0xfffd, 0xfffe, 0xffff, 0x1234, 0x5555, 0xaaaa, 0xedcb};

enum { BYTES_ALL, HALVES_VS_SPECIAL, EDGE_BYTES, EDGE_HALVES, RANDOM, SETS };
static const char* const kSetNames[SETS] = {
    "every byte pair, every lane", "every halfword vs 32 specials", "edge-byte words, all pairs",
    "edge-halfword words, all pairs", "random pairs"};

__device__ inline void input(int set, unsigned long long k, unsigned int* a, unsigned int* b) {
  switch (set) {
    case BYTES_ALL: {  // lane 0 (x, y), 1 (y, x), 2 (x^80, y^55), 3 (~y, x): each lane all pairs
      unsigned int x = k & 0xff, y = (k >> 8) & 0xff;
      *a = x | y << 8 | (x ^ 0x80) << 16 | (~y & 0xff) << 24;
      *b = y | x << 8 | (y ^ 0x55) << 16 | x << 24;
      break;
    }
    case HALVES_VS_SPECIAL: {
      unsigned int x = k & 0xffff, s = kSpecial16[(k >> 16) & 31];
      *a = x | s << 16;
      *b = s | x << 16;
      break;
    }
    case EDGE_BYTES: {
      unsigned int wa = (k >> 12) & 4095, wb = k & 4095, ra = 0, rb = 0;
      for (int l = 0; l < 4; ++l) {
        ra |= kEdge8[(wa >> (3 * l)) & 7] << (8 * l);
        rb |= kEdge8[(wb >> (3 * l)) & 7] << (8 * l);
      }
      *a = ra;
      *b = rb;
      break;
    }
    case EDGE_HALVES: {
      unsigned int wa = (k >> 8) & 255, wb = k & 255;
      *a = kEdge16[wa & 15] | kEdge16[wa >> 4] << 16;
      *b = kEdge16[wb & 15] | kEdge16[wb >> 4] << 16;
      break;
    }
    default: {
      unsigned long long r = splitmix(k);
      *a = static_cast<unsigned int>(r);
      *b = static_cast<unsigned int>(r >> 32);
    }
  }
}

__device__ inline void report(int f, unsigned int a, unsigned int b, unsigned int cuda,
                              unsigned int ours, unsigned long long* bad, Mismatch* first) {
  atomicAdd(&bad[f], 1ull);
  if (atomicCAS(&first[f].seen, 0u, 1u) == 0u) {
    first[f].a = a;
    first[f].b = b;
    first[f].cuda = cuda;
    first[f].ours = ours;
  }
}

__global__ void compare(int set, unsigned long long count, unsigned long long* bad,
                        Mismatch* first) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
    unsigned int a, b;
    input(set, k, &a, &b);
    int f = 0;
#define U(n)                                           \
  {                                                    \
    unsigned int x = ::n(a), y = rp::n(a);             \
    if (x != y) report(f, a, b, x, y, bad, first);     \
    ++f;                                               \
  }
#define B(n)                                           \
  {                                                    \
    unsigned int x = ::n(a, b), y = rp::n(a, b);       \
    if (x != y) report(f, a, b, x, y, bad, first);     \
    ++f;                                               \
  }
    SIMD_UNARY(U) SIMD_BINARY(B)
#undef U
#undef B
  }
}

// Negative controls: CUDA's function against the header's function of another name that agrees
// with it on most inputs; each must be seen to differ, or the comparison itself is broken.
#define CONTROLS(X1, X2)       \
  X1(__vabsss4, __vabs4)       \
  X2(__vsubss4, __vsub4)       \
  X2(__vavgu4, __vhaddu4)      \
  X2(__vavgs2, __vavgu2)       \
  X2(__vcmpeq2, __vseteq2)
enum { CONTROL_COUNT = 5 };

__global__ void control(int set, unsigned long long count, unsigned long long* differ) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
    unsigned int a, b;
    input(set, k, &a, &b);
    int c = 0;
#define X1(cuda, other) \
  if (::cuda(a) != rp::other(a)) atomicAdd(&differ[c], 1ull); \
  ++c;
#define X2(cuda, other) \
  if (::cuda(a, b) != rp::other(a, b)) atomicAdd(&differ[c], 1ull); \
  ++c;
    CONTROLS(X1, X2)
#undef X1
#undef X2
  }
}

// CUDA's results for the fixture's pairs: out[i * SIMD_COUNT + f]
__global__ void evaluate(const unsigned int* as, const unsigned int* bs, int n,
                         unsigned int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int a = as[i], b = bs[i];
  unsigned int* o = out + static_cast<size_t>(i) * SIMD_COUNT;
#define U(n) *o++ = ::n(a);
#define B(n) *o++ = ::n(a, b);
  SIMD_UNARY(U) SIMD_BINARY(B)
#undef U
#undef B
}

static void ours_on_host(unsigned int a, unsigned int b, unsigned int* o) {
#define U(n) *o++ = rp::n(a);
#define B(n) *o++ = rp::n(a, b);
  SIMD_UNARY(U) SIMD_BINARY(B)
#undef U
#undef B
}

static const unsigned int kHostEdge8[8] = {0x00, 0x01, 0x40, 0x7f, 0x80, 0x81, 0xfe, 0xff};
static const unsigned int kHostEdge16[8] = {0x0000, 0x0001, 0x7ffe, 0x7fff,
                                            0x8000, 0x8001, 0xfffe, 0xffff};

static int write_fixture(const char* path, const cudaDeviceProp& prop, int driver, int runtime) {
  std::vector<unsigned int> as, bs;
  for (int j = 0; j < 64; ++j) {  // each pair of edge bytes in each lane
    unsigned int a = 0, b = 0;
    for (int l = 0; l < 4; ++l) {
      int c = (j + 16 * l) % 64;
      a |= kHostEdge8[c >> 3] << (8 * l);
      b |= kHostEdge8[c & 7] << (8 * l);
    }
    as.push_back(a);
    bs.push_back(b);
  }
  for (int j = 0; j < 64; ++j) {  // each pair of edge halfwords in each lane
    int c0 = j, c1 = (j + 32) % 64;
    as.push_back(kHostEdge16[c0 >> 3] | kHostEdge16[c1 >> 3] << 16);
    bs.push_back(kHostEdge16[c0 & 7] | kHostEdge16[c1 & 7] << 16);
  }
  const unsigned int doc[4][2] = {  // the header's documented examples, and their reverse
      {0x1234aba5u, 0x1234aba6u}, {0x1234aba6u, 0x1234aba5u}, {0u, 0u}, {~0u, ~0u}};
  for (auto& p : doc) {
    as.push_back(p[0]);
    bs.push_back(p[1]);
  }
  for (int j = 0; j < 128; ++j) {
    unsigned long long r = splitmix(0x5eed0000ull + j);
    as.push_back(static_cast<unsigned int>(r));
    bs.push_back(static_cast<unsigned int>(r >> 32));
  }
  const int n = static_cast<int>(as.size());
  unsigned int *da, *db, *dout;
  CHECK(cudaMalloc(&da, n * sizeof(unsigned int)));
  CHECK(cudaMalloc(&db, n * sizeof(unsigned int)));
  CHECK(cudaMalloc(&dout, static_cast<size_t>(n) * SIMD_COUNT * sizeof(unsigned int)));
  CHECK(cudaMemset(dout, 0xa5, static_cast<size_t>(n) * SIMD_COUNT * sizeof(unsigned int)));
  CHECK(cudaMemcpy(da, as.data(), n * sizeof(unsigned int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, bs.data(), n * sizeof(unsigned int), cudaMemcpyHostToDevice));
  evaluate<<<(n + 127) / 128, 128>>>(da, db, n, dout);
  CHECK(cudaGetLastError());
  std::vector<unsigned int> out(static_cast<size_t>(n) * SIMD_COUNT);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dout));

  int host_bad = 0;
  for (int i = 0; i < n; ++i) {
    unsigned int mine[SIMD_COUNT];
    ours_on_host(as[i], bs[i], mine);
    for (int f = 0; f < SIMD_COUNT; ++f) {
      if (mine[f] != out[static_cast<size_t>(i) * SIMD_COUNT + f]) {
        if (host_bad++ < 10) {
          std::printf("host mismatch %s(%08x, %08x): cuda %08x ours %08x\n", kNames[f], as[i],
                      bs[i], out[static_cast<size_t>(i) * SIMD_COUNT + f], mine[f]);
        }
      }
    }
  }
  std::printf("fixture: %d pairs x %d functions; header compiled for the host: %d differ\n", n,
              SIMD_COUNT, host_bad);

  FILE* fp = std::fopen(path, "w");
  if (!fp) {
    std::perror(path);
    return 2;
  }
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::fprintf(fp, "# CUDA's SIMD intrinsics, computed on the GPU by CUDA's own functions\n");
  std::fprintf(fp, "# source: tests/port/simd/simd_check.cu --fixture (its evaluate kernel)\n");
  std::fprintf(fp, "# where: CUDA runtime %d.%d, driver %d.%d, on an %s (sm_%d%d), %s\n",
               runtime / 1000, runtime % 1000 / 10, driver / 1000, driver % 1000 / 10,
               prop.name, prop.major, prop.minor, date);
  std::fprintf(fp, "# one line per pair: a b, then each function's result (one-argument ones\n");
  std::fprintf(fp, "# take a alone), in the order of the names line; all in hexadecimal\n");
  std::fprintf(fp, "names");
  for (int f = 0; f < SIMD_COUNT; ++f) std::fprintf(fp, " %s", kNames[f]);
  std::fprintf(fp, "\n");
  for (int i = 0; i < n; ++i) {
    std::fprintf(fp, "%08x %08x", as[i], bs[i]);
    for (int f = 0; f < SIMD_COUNT; ++f) {
      std::fprintf(fp, " %x", out[static_cast<size_t>(i) * SIMD_COUNT + f]);
    }
    std::fprintf(fp, "\n");
  }
  std::fclose(fp);
  return host_bad == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* fixture = nullptr;
  int random_log2 = 28;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fixture") && i + 1 < argc) {
      fixture = argv[++i];
    } else if (!std::strcmp(argv[i], "--random-log2") && i + 1 < argc) {
      random_log2 = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--fixture FILE] [--random-log2 N]\n", argv[0]);
      return 2;
    }
  }
  cudaDeviceProp prop;
  int driver = 0, runtime = 0;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  std::printf("%s (sm_%d%d), CUDA runtime %d, driver %d\n", prop.name, prop.major, prop.minor,
              runtime, driver);

  unsigned long long* bad;
  Mismatch* first;
  CHECK(cudaMalloc(&bad, SIMD_COUNT * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&first, SIMD_COUNT * sizeof(Mismatch)));
  CHECK(cudaMemset(bad, 0, SIMD_COUNT * sizeof(unsigned long long)));
  CHECK(cudaMemset(first, 0, SIMD_COUNT * sizeof(Mismatch)));
  const unsigned long long counts[SETS] = {1ull << 16, 32ull << 16, 1ull << 24, 1ull << 16,
                                           1ull << random_log2};
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  unsigned long long pairs = 0;
  for (int set = 0; set < SETS; ++set) {
    CHECK(cudaEventRecord(start));
    compare<<<prop.multiProcessorCount * 8, 256>>>(set, counts[set], bad, first);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    pairs += counts[set];
    std::printf("set %-32s %12llu pairs x %d functions, %8.1f ms\n", kSetNames[set],
                counts[set], SIMD_COUNT, ms);
  }
  unsigned long long host_bad[SIMD_COUNT];
  Mismatch host_first[SIMD_COUNT];
  CHECK(cudaMemcpy(host_bad, bad, sizeof host_bad, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(host_first, first, sizeof host_first, cudaMemcpyDeviceToHost));
  unsigned long long total_bad = 0;
  int functions_bad = 0;
  for (int f = 0; f < SIMD_COUNT; ++f) {
    if (!host_bad[f]) continue;
    total_bad += host_bad[f];
    ++functions_bad;
    const Mismatch& m = host_first[f];
    std::printf("MISMATCH %-13s %llu times, first %s(%08x, %08x): cuda %08x ours %08x\n",
                kNames[f], host_bad[f], kNames[f], m.a, m.b, m.cuda, m.ours);
  }
  std::printf("device: %llu pairs x %d functions = %llu comparisons, %llu differ (%d functions)\n",
              pairs, SIMD_COUNT, pairs * SIMD_COUNT, total_bad, functions_bad);
  int rc = total_bad ? 1 : 0;

  // the negative controls, over the edge-byte and random sets: each must differ somewhere
  unsigned long long* differ;
  unsigned long long control_differ[CONTROL_COUNT];
  CHECK(cudaMalloc(&differ, sizeof control_differ));
  CHECK(cudaMemset(differ, 0, sizeof control_differ));
  control<<<prop.multiProcessorCount * 8, 256>>>(EDGE_BYTES, counts[EDGE_BYTES], differ);
  CHECK(cudaGetLastError());
  control<<<prop.multiProcessorCount * 8, 256>>>(RANDOM, counts[RANDOM], differ);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(control_differ, differ, sizeof control_differ, cudaMemcpyDeviceToHost));
  const char* const control_names[CONTROL_COUNT] = {
#define X(cuda, other) #cuda " vs " #other,
      CONTROLS(X, X)
#undef X
  };
  for (int c = 0; c < CONTROL_COUNT; ++c) {
    std::printf("control %-22s differs %llu times of %llu%s\n", control_names[c],
                control_differ[c], counts[EDGE_BYTES] + counts[RANDOM],
                control_differ[c] ? "" : ": CONTROL FAILED");
    if (!control_differ[c]) rc = 1;
  }
  if (fixture) rc |= write_fixture(fixture, prop, driver, runtime);
  std::printf(rc ? "RESULT: FAILED\n" : "RESULT: all equal, controls differ\n");
  return rc;
}
