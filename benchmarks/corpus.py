# ruff: noqa: E501  (the C++ templates below keep one source line per Python line)
"""Generate a large, realistic CUDA source tree for the port benchmarks (deterministic, seeded).

The tree looks like a mid-sized GPU code base: several libraries with public headers, kernels
and host code, tests and tools; build files and docs beside them. Files hold

- kernels: element-wise maps, warp and block reductions with ``__shfl_down_sync``, tiled
  shared-memory transposes and GEMMs, histograms with atomics, half-precision math,
  cooperative groups, cuRAND device generators, CUB block primitives, templates;
- host code: memory management, streams and events, device queries, error-check macros,
  launches with ``<<<…>>>``, cuBLAS, cuFFT, cuRAND, cuSPARSE, cuSOLVER, NCCL and driver API
  sequences, RAII wrappers;
- comments and string literals that mention CUDA names (tools must leave those alone);
- a tail of uses of API names drawn from the mapping data (calls, declarations, enumerators;
  five in six have a HIP equivalent), so that the corpus is not limited to the common APIs.

Usage: ``python benchmarks/corpus.py OUT [--size-mb 21] [--seed 2024]``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import shutil
from importlib import resources
from pathlib import Path

_PLAIN = re.compile(r"[A-Za-z_]\w*")

#: (name, weight): the APIs that real CUDA code calls most, by rough frequency
COMMON_CALLS = (
    ("cudaMalloc", 30),
    ("cudaFree", 30),
    ("cudaMemcpy", 30),
    ("cudaMemcpyAsync", 14),
    ("cudaMemset", 10),
    ("cudaMemsetAsync", 6),
    ("cudaDeviceSynchronize", 16),
    ("cudaGetLastError", 14),
    ("cudaStreamSynchronize", 10),
    ("cudaMallocHost", 5),
    ("cudaFreeHost", 5),
    ("cudaMallocManaged", 4),
    ("cudaSetDevice", 8),
    ("cudaGetDevice", 6),
    ("cudaGetDeviceCount", 5),
    ("cudaEventRecord", 8),
    ("cudaEventSynchronize", 5),
    ("cudaEventElapsedTime", 5),
    ("cudaStreamWaitEvent", 3),
    ("cudaFuncSetAttribute", 2),
    ("cudaOccupancyMaxActiveBlocksPerMultiprocessor", 2),
    ("cudaMemGetInfo", 3),
    ("cudaPointerGetAttributes", 1),
    ("cudaHostRegister", 1),
    ("cudaMemcpy2D", 2),
    ("cudaMemcpyToSymbol", 3),
    ("cudaDeviceGetAttribute", 3),
    ("cudaMemPrefetchAsync", 2),
)
TAIL_SHARE = 1 / 6

INCLUDES = (
    ("cuda_runtime.h", 10),
    ("cuda.h", 3),
    ("cuda_runtime_api.h", 2),
    ("cublas_v2.h", 4),
    ("curand.h", 2),
    ("curand_kernel.h", 2),
    ("cufft.h", 2),
    ("cusparse.h", 2),
    ("cusolverDn.h", 2),
    ("cub/cub.cuh", 2),
    ("thrust/device_vector.h", 2),
    ("thrust/sort.h", 1),
    ("cooperative_groups.h", 2),
    ("cuda_fp16.h", 3),
    ("cuda_bf16.h", 1),
    ("nccl.h", 1),
    ("device_launch_parameters.h", 1),
)
STD_INCLUDES = ("cstdio", "cstdlib", "vector", "string", "memory", "algorithm", "cmath", "iostream")
TYPES = ("float", "double", "int", "__half", "float2", "unsigned int")
WORDS = (
    "tile",
    "row",
    "col",
    "grid",
    "batch",
    "chunk",
    "stage",
    "pass",
    "layer",
    "head",
    "block",
    "warp",
    "lane",
    "pivot",
    "bucket",
    "slice",
    "frame",
    "voxel",
    "particle",
    "cell",
    "edge",
)


def _data(name: str) -> dict:
    return json.loads((resources.files("rocport.port") / "data" / name).read_text(encoding="utf-8"))


def tail_names(rng: random.Random, count: int = 4000) -> list[tuple[str, str]]:
    """``count`` ``(name, kind)`` pairs from the mapping data (plain identifiers: functions,
    types, enumerators): five in six have a HIP equivalent, as in code that builds today."""
    supported, other = [], []
    data_dir = resources.files("rocport.port") / "data"
    for entry in sorted(p.name for p in data_dir.iterdir() if p.name.endswith(".json")):
        if entry in ("includes.json", "prefixes.json", "releases.json", "cublas_rocblas.json"):
            continue
        for cuda, raw in _data(entry).get("entries", {}).items():
            if _PLAIN.fullmatch(cuda) and raw.get("kind") in ("function", "type", "enumerator"):
                (supported if raw.get("hip") else other).append((cuda, raw["kind"]))
    return [
        rng.choice(supported) if rng.random() < 5 / 6 else rng.choice(other) for _ in range(count)
    ]


class Writer:
    """Builds one file's text out of blocks, with per-file random choices."""

    def __init__(self, rng: random.Random, tail: list[tuple[str, str]], lib: str) -> None:
        self.rng = rng
        self.tail = tail
        self.lib = lib
        self.n = 0
        self._calls = [name for name, _ in COMMON_CALLS]
        self._weights = [w for _, w in COMMON_CALLS]
        self.check = rng.choice(("CUDA_CHECK", "CHECK_CUDA", "cudaCheck", "CUDA_SAFE_CALL"))

    def ident(self, stem: str) -> str:
        self.n += 1
        return f"{stem}_{self.rng.choice(WORDS)}{self.n}"

    def api(self) -> str:
        """A common runtime call, or (one time in six) a name from the data tail."""
        if self.rng.random() < TAIL_SHARE:
            return self.tail_use()
        api = self.rng.choices(self._calls, self._weights)[0]
        return f"  {self.check}({api}({self.args()}));"

    def args(self) -> str:
        choices = ("handle", "stream", "d_buf", "n", "0", "&info", "nullptr")
        return ", ".join(self.rng.choice(choices) for _ in range(self.rng.randint(1, 4)))

    def tail_use(self) -> str:
        name, kind = self.rng.choice(self.tail)
        if kind == "type":
            return f"  {name}* {self.ident('obj')} = nullptr;"
        if kind == "enumerator":
            return f"  const int {self.ident('flag')} = static_cast<int>({name});"
        return f"  (void){name}({self.args()});"

    # -- file parts --------------------------------------------------------------------------
    def license(self) -> str:
        year = self.rng.randint(2015, 2025)
        return (
            f"// Copyright {year} The {self.lib} Authors. Licensed under the Apache License 2.0.\n"
            f"//\n// {self.lib}: GPU routines built on the CUDA runtime (cudaMalloc, cudaMemcpyAsync,\n"
            f"// cudaStreamCreate) and on cuBLAS (cublasSgemm) where available.\n\n"
        )

    def includes(self, local: list[str]) -> str:
        rng = self.rng
        lines = [f"#include <{h}>" for h in rng.sample(STD_INCLUDES, rng.randint(1, 4))]
        names = [n for n, _ in INCLUDES]
        weights = [w for _, w in INCLUDES]
        chosen = dict.fromkeys(rng.choices(names, weights, k=rng.randint(1, 5)))
        lines += [f"#include <{h}>" for h in chosen]
        lines += [f'#include "{h}"' for h in local]
        return "\n".join(lines) + "\n\n"

    def check_macro(self) -> str:
        return (
            f"#ifndef {self.check}\n"
            f"#define {self.check}(call)                                                   \\\n"
            "  do {                                                                    \\\n"
            "    cudaError_t err_ = (call);                                            \\\n"
            "    if (err_ != cudaSuccess) {                                            \\\n"
            '      fprintf(stderr, "CUDA error %s (%s) at %s:%d\\n",                    \\\n'
            "              cudaGetErrorString(err_), cudaGetErrorName(err_), __FILE__, \\\n"
            "              __LINE__);                                                  \\\n"
            "      exit(EXIT_FAILURE);                                                 \\\n"
            "    }                                                                     \\\n"
            "  } while (0)\n#endif\n\n"
        )

    def elementwise(self) -> str:
        name, t = self.ident("axpby"), self.rng.choice(("float", "double"))
        return (
            f"// Grid-stride loop; see the CUDA C++ Programming Guide on __launch_bounds__.\n"
            f"__global__ void __launch_bounds__(256) {name}(int n, {t} a, const {t}* __restrict__ x,\n"
            f"                                        {t} b, {t}* __restrict__ y) {{\n"
            f"  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {{\n"
            f"    y[i] = a * __ldg(&x[i]) + b * y[i];\n  }}\n}}\n\n"
        )

    def warp_reduce(self) -> str:
        name = self.ident("warp_sum")
        return (
            "template <typename T>\n"
            f"__device__ __forceinline__ T {name}(T v) {{\n"
            "  // __shfl_down_sync needs a full mask on Volta and later\n"
            "  for (int offset = warpSize / 2; offset > 0; offset >>= 1)\n"
            "    v += __shfl_down_sync(0xffffffffu, v, offset);\n"
            "  return v;\n}\n\n"
            f"template <typename T, int BLOCK>\n__global__ void {name}_kernel(const T* in, T* out, int n) {{\n"
            "  __shared__ T partial[BLOCK / 32];\n"
            "  T v = 0;\n"
            "  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) v += in[i];\n"
            f"  v = {name}(v);\n"
            "  if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = v;\n"
            "  __syncthreads();\n"
            f"  if (threadIdx.x < 32) {{\n    v = threadIdx.x < BLOCK / 32 ? partial[threadIdx.x] : T(0);\n"
            f"    v = {name}(v);\n    if (threadIdx.x == 0) atomicAdd(out, v);\n  }}\n}}\n\n"
        )

    def transpose(self) -> str:
        name, tile = self.ident("transpose"), self.rng.choice((16, 32))
        return (
            f"__global__ void {name}(float* odata, const float* idata, int width, int height) {{\n"
            f"  __shared__ float tile[{tile}][{tile} + 1];  // +1 avoids shared-memory bank conflicts\n"
            f"  int x = blockIdx.x * {tile} + threadIdx.x;\n  int y = blockIdx.y * {tile} + threadIdx.y;\n"
            "  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = idata[y * width + x];\n"
            "  __syncthreads();\n"
            f"  x = blockIdx.y * {tile} + threadIdx.x;\n  y = blockIdx.x * {tile} + threadIdx.y;\n"
            "  if (x < height && y < width) odata[y * height + x] = tile[threadIdx.x][threadIdx.y];\n}\n\n"
        )

    def half_math(self) -> str:
        name = self.ident("gelu_half")
        return (
            f"__global__ void {name}(const __half* x, __half* y, int n) {{\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n"
            "  float v = __half2float(x[i]);\n"
            "  float t = tanhf(0.7978845608f * (v + 0.044715f * v * v * v));\n"
            "  y[i] = __float2half(0.5f * v * (1.0f + t));\n"
            "  // __hmul and __hadd would keep it in half precision\n}\n\n"
        )

    def coop_groups(self) -> str:
        name = self.ident("cg_reduce")
        return (
            "namespace cg = cooperative_groups;\n"
            f"__global__ void {name}(const int* in, int* out, int n) {{\n"
            "  cg::thread_block block = cg::this_thread_block();\n"
            "  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);\n"
            "  int v = 0;\n  for (int i = block.group_index().x * block.size() + block.thread_rank(); i < n;\n"
            "       i += block.size() * gridDim.x) v += in[i];\n"
            "  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);\n"
            "  if (tile.thread_rank() == 0) atomicAdd(out, v);\n  block.sync();\n}\n\n"
        )

    def curand_kernel(self) -> str:
        name = self.ident("monte_carlo")
        return (
            f"__global__ void {name}(unsigned long long seed, float* hits, int samples) {{\n"
            "  curandState state;\n  int id = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  curand_init(seed, id, 0, &state);\n  int inside = 0;\n"
            "  for (int s = 0; s < samples; ++s) {\n"
            "    float x = curand_uniform(&state), y = curand_uniform(&state);\n"
            "    inside += (x * x + y * y) <= 1.0f;\n  }\n"
            "  hits[id] = float(inside) / samples;\n}\n\n"
        )

    def cub_block(self) -> str:
        name = self.ident("block_scan")
        return (
            f"template <int BLOCK>\n__global__ void {name}(const int* in, int* out) {{\n"
            "  using BlockScan = cub::BlockScan<int, BLOCK>;\n"
            "  __shared__ typename BlockScan::TempStorage temp;\n"
            "  int v = in[blockIdx.x * BLOCK + threadIdx.x];\n"
            "  BlockScan(temp).ExclusiveSum(v, v);\n"
            "  out[blockIdx.x * BLOCK + threadIdx.x] = v;\n}\n\n"
        )

    def histogram(self) -> str:
        name, bins = self.ident("histogram"), self.rng.choice((64, 128, 256))
        return (
            f"__global__ void {name}(const unsigned char* data, unsigned int* bins, size_t n) {{\n"
            f"  __shared__ unsigned int local[{bins}];\n"
            f"  for (int b = threadIdx.x; b < {bins}; b += blockDim.x) local[b] = 0;\n"
            "  __syncthreads();\n"
            "  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
            f"    atomicAdd(&local[data[i] % {bins}], 1u);\n"
            "  __syncthreads();\n"
            f"  for (int b = threadIdx.x; b < {bins}; b += blockDim.x) atomicAdd(&bins[b], local[b]);\n}}\n\n"
        )

    def host_memory(self) -> str:
        rng, c = self.rng, self.check
        name, t = self.ident("run"), rng.choice(("float", "double", "int"))
        kernel = self.ident("scale_kernel")
        lines = [
            f"__global__ void {kernel}({t}* p, int n) {{\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) p[i] *= 2;\n}\n",
            f"int {name}(const std::vector<{t}>& host, std::vector<{t}>& result) {{",
            f"  const int n = static_cast<int>(host.size());\n  {t}* d_buf = nullptr;",
            f"  {c}(cudaMalloc(reinterpret_cast<void**>(&d_buf), n * sizeof({t})));",
            f"  {c}(cudaMemcpy(d_buf, host.data(), n * sizeof({t}), cudaMemcpyHostToDevice));",
            "  cudaStream_t stream;\n  cudaEvent_t start, stop;",
            f"  {c}(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));",
            f"  {c}(cudaEventCreate(&start));\n  {c}(cudaEventCreate(&stop));",
            f"  {c}(cudaEventRecord(start, stream));",
            f"  {kernel}<<<(n + 255) / 256, 256, 0, stream>>>(d_buf, n);",
            f"  {c}(cudaGetLastError());",
            f"  {c}(cudaEventRecord(stop, stream));\n  {c}(cudaEventSynchronize(stop));",
            f"  float ms = 0.0f;\n  {c}(cudaEventElapsedTime(&ms, start, stop));",
            '  printf("kernel took %.3f ms (timed with cudaEventElapsedTime)\\n", ms);',
            f"  result.resize(n);\n  {c}(cudaMemcpyAsync(result.data(), d_buf, n * sizeof({t}),"
            " cudaMemcpyDeviceToHost, stream));",
            f"  {c}(cudaStreamSynchronize(stream));",
        ]
        for _ in range(rng.randint(2, 8)):
            lines.append(self.api())
        lines += [
            f"  {c}(cudaEventDestroy(start));\n  {c}(cudaEventDestroy(stop));",
            f"  {c}(cudaStreamDestroy(stream));\n  {c}(cudaFree(d_buf));\n  return 0;\n}}\n",
        ]
        return "\n".join(lines) + "\n"

    def device_query(self) -> str:
        name = self.ident("print_devices")
        return (
            f"void {name}() {{\n  int count = 0;\n  {self.check}(cudaGetDeviceCount(&count));\n"
            "  for (int d = 0; d < count; ++d) {\n    cudaDeviceProp prop;\n"
            f"    {self.check}(cudaGetDeviceProperties(&prop, d));\n"
            "    int smem = 0;\n"
            f"    {self.check}(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, d));\n"
            '    printf("device %d: %s, %d SMs, warp %d, cc %d.%d\\n", d, prop.name,\n'
            "           prop.multiProcessorCount, prop.warpSize, prop.major, prop.minor);\n"
            f"  }}\n  {self.check}(cudaSetDevice(0));\n}}\n\n"
        )

    def cublas(self) -> str:
        name = self.ident("gemm")
        t, p = self.rng.choice((("float", "S"), ("double", "D")))
        return (
            f"void {name}(cublasHandle_t handle, cudaStream_t stream, int m, int n, int k,\n"
            f"           const {t}* A, const {t}* B, {t}* C) {{\n"
            f"  const {t} alpha = 1, beta = 0;\n"
            "  cublasStatus_t st = cublasSetStream(handle, stream);\n"
            '  if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasSetStream failed");\n'
            f"  st = cublas{p}gemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &alpha, A, m, B, n, &beta, C, m);\n"
            '  if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas gemm failed");\n'
            f"  cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST);\n"
            f"  cublas{p}axpy(handle, m, &alpha, A, 1, C, 1);\n}}\n\n"
        )

    def libraries(self) -> str:
        rng = self.rng
        name = self.ident("libs")
        parts = [f"void {name}(cudaStream_t stream, float* d, int n) {{"]
        pick = rng.sample(
            ("curand", "cufft", "cusparse", "cusolver", "nccl", "driver"), rng.randint(1, 3)
        )
        if "curand" in pick:
            parts.append(
                "  curandGenerator_t gen;\n  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);\n"
                "  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);\n  curandSetStream(gen, stream);\n"
                "  curandGenerateUniform(gen, d, n);\n  curandDestroyGenerator(gen);"
            )
        if "cufft" in pick:
            parts.append(
                "  cufftHandle plan;\n  if (cufftPlan1d(&plan, n, CUFFT_C2C, 1) != CUFFT_SUCCESS) return;\n"
                "  cufftSetStream(plan, stream);\n"
                "  cufftExecC2C(plan, reinterpret_cast<cufftComplex*>(d), reinterpret_cast<cufftComplex*>(d),"
                " CUFFT_FORWARD);\n  cufftDestroy(plan);"
            )
        if "cusparse" in pick:
            parts.append(
                "  cusparseHandle_t sp;\n  cusparseCreate(&sp);\n  cusparseSetStream(sp, stream);\n"
                "  cusparseSpMatDescr_t mat;\n  cusparseDnVecDescr_t vx, vy;\n"
                "  cusparseCreateDnVec(&vx, n, d, CUDA_R_32F);\n  cusparseCreateDnVec(&vy, n, d, CUDA_R_32F);\n"
                "  cusparseDestroyDnVec(vx);\n  cusparseDestroyDnVec(vy);\n  cusparseDestroy(sp);"
            )
        if "cusolver" in pick:
            parts.append(
                "  cusolverDnHandle_t dn;\n  cusolverDnCreate(&dn);\n  cusolverDnSetStream(dn, stream);\n"
                "  int lwork = 0;\n  cusolverDnSgetrf_bufferSize(dn, n, n, d, n, &lwork);\n"
                "  cusolverDnDestroy(dn);"
            )
        if "nccl" in pick:
            parts.append(
                "  ncclComm_t comm;\n  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n"
                "  ncclCommInitRank(&comm, 1, id, 0);\n"
                "  ncclAllReduce(d, d, n, ncclFloat, ncclSum, comm, stream);\n  ncclCommDestroy(comm);"
            )
        if "driver" in pick:
            parts.append(
                "  CUdevice dev;\n  CUcontext ctx;\n  CUmodule mod;\n  CUfunction fn;\n"
                "  if (cuInit(0) != CUDA_SUCCESS) return;\n  cuDeviceGet(&dev, 0);\n"
                "  cuCtxCreate(&ctx, 0, dev);\n"
                '  cuModuleLoad(&mod, "kernels.cubin");\n  cuModuleGetFunction(&fn, mod, "scale");\n'
                "  void* args[] = {&d, &n};\n"
                "  cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr);\n"
                "  cuCtxSynchronize();\n  cuModuleUnload(mod);\n  cuCtxDestroy(ctx);"
            )
        parts.append("}\n")
        return "\n".join(parts) + "\n"

    def raii(self) -> str:
        name = self.ident("DeviceBuffer").title().replace("_", "")
        return (
            f"template <typename T>\nclass {name} {{\n public:\n"
            f"  explicit {name}(size_t n) : n_(n) {{ {self.check}(cudaMalloc(&ptr_, n * sizeof(T))); }}\n"
            f"  ~{name}() {{ cudaFree(ptr_); }}\n"
            f"  {name}(const {name}&) = delete;\n"
            "  void upload(const T* host, cudaStream_t s = 0) {\n"
            f"    {self.check}(cudaMemcpyAsync(ptr_, host, n_ * sizeof(T), cudaMemcpyHostToDevice, s));\n  }}\n"
            "  void zero() { cudaMemset(ptr_, 0, n_ * sizeof(T)); }\n"
            "  T* get() const { return ptr_; }\n\n private:\n  T* ptr_ = nullptr;\n  size_t n_;\n};\n\n"
        )

    def templated_launch(self) -> str:
        reduce = self.warp_reduce()
        kernel = re.search(r"__global__ void (\w+)\(", reduce).group(1)
        name = self.ident("launch_reduce")
        return (
            reduce + f"void {name}(const float* d_in, float* d_out, int n, cudaStream_t s) {{\n"
            "  constexpr int kBlock = 256;\n  int blocks = 0, device = 0;\n"
            f"  {self.check}(cudaMemsetAsync(d_out, 0, sizeof(float), s));\n"
            f"  {self.check}(cudaGetDevice(&device));\n"
            f"  {self.check}(cudaDeviceGetAttribute(&blocks, cudaDevAttrMultiProcessorCount, device));\n"
            f"  {kernel}<float, kBlock><<<blocks * 4, kBlock, 0, s>>>(d_in, d_out, n);\n"
            "  // cudaGetLastError() reports launch errors; cudaDeviceSynchronize() the asynchronous ones\n"
            f"  {self.check}(cudaGetLastError());\n}}\n\n"
        )


KERNEL_BLOCKS = (
    "elementwise",
    "warp_reduce",
    "transpose",
    "half_math",
    "coop_groups",
    "curand_kernel",
    "cub_block",
    "histogram",
)
HOST_BLOCKS = ("host_memory", "device_query", "cublas", "libraries", "raii")


def source_file(w: Writer, size: int, local: list[str], header: bool) -> str:
    parts = [w.license()]
    if header:
        parts.append("#pragma once\n")
    parts.append(w.includes(local))
    parts.append(w.check_macro())
    blocks = KERNEL_BLOCKS + HOST_BLOCKS + ("templated_launch",)
    total = sum(map(len, parts))
    while total < size:
        part = getattr(w, w.rng.choice(blocks))()
        parts.append(part)
        total += len(part)
    return "".join(parts)


def generate(out: Path, size_mb: float = 21.0, seed: int = 2024) -> tuple[int, int]:
    """Write the tree to ``out`` (replaced if it exists); return (files, bytes) of source."""
    rng = random.Random(seed)
    tail = tail_names(rng)
    if out.exists():
        shutil.rmtree(out)
    target = int(size_mb * 1024 * 1024)
    written = files = 0
    lib_index = 0
    while written < target:
        lib = f"lib{lib_index:02d}_{rng.choice(WORDS)}"
        lib_index += 1
        root = out / lib
        headers = [f"{lib}/{rng.choice(WORDS)}_{i}.cuh" for i in range(rng.randint(2, 6))]
        for header in headers:
            w = Writer(rng, tail, lib)
            text = source_file(w, _size(rng, 6_000), [], header=True)
            _write(root / "include" / header, text)
            written += len(text)
            files += 1
        for folder, suffix, count in (
            ("src", ".cu", rng.randint(6, 20)),
            ("src", ".cpp", rng.randint(1, 5)),
            ("kernels", ".cu", rng.randint(2, 10)),
            ("tests", ".cu", rng.randint(1, 6)),
        ):
            for i in range(count):
                w = Writer(rng, tail, lib)
                local = rng.sample(headers, rng.randint(0, min(3, len(headers))))
                text = source_file(w, _size(rng, 14_000), local, header=False)
                _write(root / folder / f"{rng.choice(WORDS)}_{i}{suffix}", text)
                written += len(text)
                files += 1
        _write(
            root / "CMakeLists.txt",
            f"cmake_minimum_required(VERSION 3.24)\nproject({lib} LANGUAGES CXX CUDA)\n"
            f"find_package(CUDAToolkit REQUIRED)\nfile(GLOB SRC src/*.cu src/*.cpp kernels/*.cu)\n"
            f"add_library({lib} ${{SRC}})\ntarget_include_directories({lib} PUBLIC include)\n"
            f"target_link_libraries({lib} PUBLIC CUDA::cudart CUDA::cublas)\n",
        )
        _write(root / "README.md", f"# {lib}\n\nBuilt with CUDA; uses cudaMalloc and cuBLAS.\n")
    return files, written


def _size(rng: random.Random, median: int) -> int:
    return int(min(200_000, max(800, rng.lognormvariate(math.log(median), 0.8))))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size-mb", type=float, default=21.0)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    files, size = generate(args.out, args.size_mb, args.seed)
    print(f"{args.out}: {files} source files, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
