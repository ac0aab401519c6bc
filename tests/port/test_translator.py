"""The translation engine: text in, HIP text and references out."""

from __future__ import annotations

import pytest

from rocport.port.mapping import load_mapping
from rocport.port.model import Outcome, PortOptions
from rocport.port.translator import translate

#: Names with fixed behaviour for these tests, layered over the shipped data exactly as a
#: project's rocport.toml would be (so the tests do not depend on how the data evolves).
EXTRA = {
    "cub": {"hip": "hipcub", "kind": "namespace"},
    "__shfl_xor_sync": {"hip": "__shfl_xor", "transform": "drop_first_arg"},
    "cudaNoSuchThing": None,
}


@pytest.fixture(scope="module")
def mapping():
    return load_mapping(rocm="6.4", extra=EXTRA)


def port(text: str, mapping, **options):
    return translate(text, path="t.cu", mapping=mapping, options=PortOptions(**options))


def refs(translation, outcome: Outcome | None = None):
    return [
        (r.name, r.line, r.column)
        for r in translation.references
        if outcome is None or r.outcome is outcome
    ]


def test_whole_identifiers_only_in_code(mapping):
    text = (
        "#include <hip/hip_runtime.h>\n"
        "// cudaMalloc in a comment\n"
        'const char* s = "cudaMalloc(&p, n)";\n'
        "void f() { cudaMalloc(&p, n); my_cudaMalloc(); cudaMallocX(); }\n"
        "/* cudaFree(p);\n   cudaFree(q); */ cudaFree(p);\n"
    )
    out = port(text, mapping).text
    assert out.splitlines() == [
        "#include <hip/hip_runtime.h>",
        "// cudaMalloc in a comment",
        'const char* s = "cudaMalloc(&p, n)";',
        "void f() { hipMalloc(&p, n); my_cudaMalloc(); cudaMallocX(); }",
        "/* cudaFree(p);",
        "   cudaFree(q); */ hipFree(p);",
    ]


def test_text_without_cuda_is_the_same_object(mapping):
    text = "#include <vector>\nint main() { return 0; }\n"
    result = port(text, mapping)
    assert result.text is text
    assert result.references == []
    assert result.inserted_lines == []


def test_digit_separators_and_char_literals(mapping):
    text = "int n = 1'000'000; char c = '\"'; cudaFree(p); auto s = u8\"cudaFree\";\n"
    out = port(text, mapping).text
    assert "hipFree(p)" in out
    assert 'u8"cudaFree"' in out


def test_raw_strings_are_left_alone(mapping):
    text = 'auto k = R"src(cudaMalloc(&p, 4); // ")src"; cudaFree(p);\n'
    out = port(text, mapping).text
    assert 'R"src(cudaMalloc(&p, 4); // ")src"' in out
    assert out.rstrip().endswith("hipFree(p);")


def test_includes_keep_their_form(mapping):
    text = '#include <cuda_runtime.h>\n#include "cublas_v2.h"\n  #  include <curand.h>\n'
    result = port(text, mapping)
    assert result.text.splitlines() == [
        "#include <hip/hip_runtime.h>",
        '#include "hipblas/hipblas.h"',
        "  #  include <hiprand/hiprand.h>",
    ]
    assert [(r.name, r.hip, r.family) for r in result.references] == [
        ("cuda_runtime.h", "hip/hip_runtime.h", "include"),
        ("cublas_v2.h", "hipblas/hipblas.h", "include"),
        ("curand.h", "hiprand/hiprand.h", "include"),
    ]
    assert result.inserted_lines == []


def test_unknown_cuda_header_is_reported(mapping):
    result = port('#include <cuda_no_such_header.h>\n#include "cuda_local.h"\n', mapping)
    assert refs(result, Outcome.UNKNOWN) == [("cuda_no_such_header.h", 1, 11)]


def test_has_include_asks_for_the_header_the_port_includes(mapping):
    """``#if __has_include(<cuda_fp16.h>)`` guarding ``#include <cuda_fp16.h>``: left as it
    was, the test is false on HIP and the port silently drops the include it maps."""
    text = (
        "#if __has_include(<cuda_fp16.h>)\n#include <cuda_fp16.h>\n#endif\n"
        '#if defined(__has_include) && __has_include_next ( "cublas_v2.h" )\n#endif\n'
        "#if __has_include(<nvml.h>)\n#endif\n"
        "int __has_include_x; // __has_include(<cuda.h>)\n"
    )
    result = port(text, mapping)
    lines = result.text.splitlines()
    assert lines[1:4] == [
        "#if __has_include(<hip/hip_fp16.h>)",
        "#include <hip/hip_fp16.h>",
        "#endif",
    ]
    assert lines[4] == ('#if defined(__has_include) && __has_include_next ( "hipblas/hipblas.h" )')
    assert lines[-1] == "int __has_include_x; // __has_include(<cuda.h>)"
    assert [(r.name, r.line, r.column, r.outcome.value) for r in result.references] == [
        ("cuda_fp16.h", 1, 20, "translated"),
        ("cuda_fp16.h", 2, 11, "translated"),
        ("cublas_v2.h", 4, 53, "translated"),
        ("nvml.h", 6, 20, "unknown"),  # the header, not an identifier "nvml"
    ]
    assert port(result.text, mapping).text == result.text


def test_runtime_header_inserted_after_leading_comments(mapping):
    text = "// Copyright\n/* licence\n   text */\n#pragma once\n\n__global__ void k() {}\n"
    result = port(text, mapping)
    lines = result.text.splitlines()
    assert lines[4] == "#include <hip/hip_runtime.h>"
    assert result.inserted_lines == [5]
    assert lines[:4] == text.splitlines()[:4]
    again = port(result.text, mapping)
    assert again.text == result.text
    assert again.inserted_lines == []


def test_runtime_header_not_inserted_when_included_or_unused(mapping):
    assert (
        port("#include <cuda_runtime.h>\nvoid f() { cudaFree(0); }\n", mapping).inserted_lines == []
    )
    assert port("int cudaish = 0;\n", mapping).inserted_lines == []
    api_only = port("#include <cuda_runtime_api.h>\nvoid f() { cudaFree(0); }\n", mapping)
    assert api_only.inserted_lines == []
    kernel = port("#include <cuda_runtime_api.h>\n__global__ void k() {}\n", mapping)
    assert kernel.inserted_lines == [1]


def test_math_h_inserted_where_nvcc_brought_it_and_the_code_needs_it(mapping):
    # nvcc's cuda_runtime.h includes <math.h>; an unqualified isfinite() in host code needs it
    text = "// c\n#include <cuda_runtime.h>\nbool ok(float x) { return isfinite(x); }\n"
    result = port(text, mapping)
    assert result.text.splitlines()[1:3] == ["#include <math.h>", "#include <hip/hip_runtime.h>"]
    assert result.inserted_lines == [2]
    again = port(result.text, mapping)
    assert again.text == result.text and again.inserted_lines == []
    kernel = port("__global__ void k(float* v) { v[0] = isnan (v[0]); }\n", mapping)
    assert kernel.text.splitlines()[:2] == ["#include <hip/hip_runtime.h>", "#include <math.h>"]
    assert kernel.inserted_lines == [1, 2]
    for quiet in (
        "#include <cuda_runtime.h>\nbool ok(float x) { return std::isfinite(x); }\n",
        "#include <cuda_runtime.h>\n#include <math.h>\nbool ok(float x) { return isinf(x); }\n",
        "#include <cuda_runtime_api.h>\nbool ok(float x) { cudaFree(0); return isinf(x); }\n",
        "#include <hip/hip_runtime.h>\nbool ok(float x) { return isinf(x); }\n",  # already HIP
        "bool ok(float x) { return my_isnan(x) || v.isnan(x); }\n",
    ):
        math_h = "#include <math.h>"
        assert port(quiet, mapping).text.count(math_h) == quiet.count(math_h), quiet


def test_cache_hinted_stores_become_plain_stores(mapping):
    text = "__device__ void f(float* p, float v) {\n  __stcs(p + 1,\n         v * 2);\n}\n"
    result = port(text, mapping)
    body = result.text.splitlines()[2:4]  # line 1 is the inserted runtime header
    assert body == ["  (void)(*(p + 1) =", "         (v * 2));"]
    assert refs(result, Outcome.TRANSLATED) == [("__stcs", 2, 3)]
    assert port(result.text, mapping).text == result.text
    # taken by address, or with the wrong arguments: left as written and reported
    own = "__device__ void __stcs(bf16* p, bf16 v) { __stcs((short*)p, v.x); }\n"
    kept = port(own, mapping)
    assert kept.text.endswith(
        "__device__ void __stcs(bf16* p, bf16 v) { (void)(*((short*)p) = (v.x)); }\n"
    )
    assert [r.outcome for r in kept.references] == [Outcome.TRANSLATED] * 2
    # a comment that ends in a word is not a type before the name (llm.c's attention.cuh)
    commented = "__device__ void f(float* p) {\n  // set it to zero\n  __stcs(p, 0.f);\n}\n"
    assert "(void)(*(p) = (0.f));" in port(commented, mapping).text
    for odd in ("auto f = &__stcg<float>;\n", "void g(float* p) { __stwb(p); }\n"):
        kept = port(odd, mapping)
        assert kept.text.endswith(odd)  # after the inserted runtime header
        assert [r.outcome for r in kept.references] == [Outcome.UNSUPPORTED]


def test_kernels_passed_to_function_apis_are_cast_once(mapping):
    text = (
        "#include <cuda_runtime.h>\n"
        "void f() { cudaFuncSetAttribute(k<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);"
        "\n"
        "  cudaFuncAttributes a; cudaFuncGetAttributes(&a, (void*)k<float>); }\n"
    )
    result = port(text, mapping)
    lines = result.text.splitlines()
    assert lines[1].startswith(
        "void f() { hipFuncSetAttribute(reinterpret_cast<const void*>(k<float>), "
    )
    assert lines[2] == "  hipFuncAttributes a; hipFuncGetAttributes(&a, (void*)k<float>); }"
    assert port(result.text, mapping).text == result.text


def test_features_hip_lacks_are_reported_not_left_silent(mapping):
    text = (
        "__global__ void k(const __grid_constant__ P p, unsigned* c) {\n"
        "  atomicInc_system(c, 10u); atomicDec_system(c, 10u); }\n"
    )
    result = port(text, mapping)
    assert refs(result, Outcome.UNSUPPORTED) == [
        ("__grid_constant__", 1, 25),
        ("atomicInc_system", 2, 3),
        ("atomicDec_system", 2, 29),
    ]
    assert refs(port("auto e = make_cudaFoo(1);\n", mapping), Outcome.UNKNOWN) == [
        ("make_cudaFoo", 1, 10)
    ]


def test_insertion_at_top_without_leading_comment(mapping):
    result = port("void f() { cudaDeviceSynchronize(); }", mapping)
    assert result.text == "#include <hip/hip_runtime.h>\nvoid f() { hipDeviceSynchronize(); }"
    assert result.inserted_lines == [1]


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("cudaMemcpyToSymbol(c_table, h, n);", "hipMemcpyToSymbol(HIP_SYMBOL(c_table), h, n);"),
        (
            "cudaMemcpyToSymbolAsync(ns::sym, h, n, 0, cudaMemcpyHostToDevice, s);",
            "hipMemcpyToSymbolAsync(HIP_SYMBOL(ns::sym), h, n, 0, hipMemcpyHostToDevice, s);",
        ),
        ("cudaMemcpyFromSymbol(h, c_table, n);", "hipMemcpyFromSymbol(h, HIP_SYMBOL(c_table), n);"),
        (
            "cudaGetSymbolAddress((void**)&p, counter);",
            "hipGetSymbolAddress((void**)&p, HIP_SYMBOL(counter));",
        ),
        ("cudaGetSymbolSize(&n, table);", "hipGetSymbolSize(&n, HIP_SYMBOL(table));"),
        ("cudaMemcpyToSymbol(HIP_SYMBOL(t), h, n);", "hipMemcpyToSymbol(HIP_SYMBOL(t), h, n);"),
    ],
)
def test_symbol_arguments_get_hip_symbol(mapping, cuda, hip):
    text = f"#include <hip/hip_runtime.h>\nvoid f() {{ {cuda} }}\n"
    out = port(text, mapping).text
    assert out == f"#include <hip/hip_runtime.h>\nvoid f() {{ {hip} }}\n"
    assert port(out, mapping).text == out


def test_drop_first_arg_transform(mapping):
    text = (
        "#include <hip/hip_runtime.h>\n"
        "__device__ int f(int v) {\n"
        "  v += __shfl_xor_sync(mask(1, 2), v, 16);\n"
        '  v += __shfl_xor_sync(0xffffffff /* all, lanes */, g(v, ")"), 8);\n'
        "  v += __shfl_xor_sync(FULL,\n"
        "                       v, 4);\n"
        "  return v;\n}\n"
    )
    result = port(text, mapping)
    lines = result.text.splitlines()
    assert lines[2] == "  v += __shfl_xor(v, 16);"
    assert lines[3] == '  v += __shfl_xor(/* all, lanes */ g(v, ")"), 8);'  # comments stay
    assert lines[4:6] == ["  v += __shfl_xor(", "                       v, 4);"]
    assert len(lines) == len(text.splitlines())
    assert port(result.text, mapping).text == result.text


def test_launch_kept_and_reported(mapping):
    text = "#include <hip/hip_runtime.h>\nvoid f() { k<<<g, b>>>(x); }\n"
    result = port(text, mapping)
    assert result.text == text
    [ref] = result.references
    assert (ref.name, ref.line, ref.column, ref.family, ref.outcome) == (
        "<<<>>>",
        2,
        13,
        "launch",
        Outcome.TRANSLATED,
    )


def test_launch_in_comment_or_string_ignored(mapping):
    text = '#include <hip/hip_runtime.h>\n// k<<<1, 1>>>(x);\nconst char* s = "k<<<1,1>>>()";\n'
    result = port(text, mapping, launch="ggl")
    assert result.text == text
    assert all(r.family != "launch" for r in result.references)


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        ("k<<<g, b>>>(x, y);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y);"),
        ("k<<<g, b, shm>>>(x);", "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, 0, x);"),
        ("k<<<g, b, 0, s>>>();", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, s);"),
        (
            "ns::k<float, 4><<<dim3(n / 256, 1), 256, 0, st>>>(p, f(a, b));",
            "hipLaunchKernelGGL(HIP_KERNEL_NAME(ns::k<float, 4>), dim3(dim3(n / 256, 1)), "
            "dim3(256), 0, st, p, f(a, b));",
        ),
        (
            'k <<< (n + 255) / 256, 256 >>> (out, "a,b");',
            'hipLaunchKernelGGL(k, dim3((n + 255) / 256), dim3(256), 0, 0, out, "a,b");',
        ),
    ],
)
def test_launch_to_hip_launch_kernel_ggl(mapping, cuda, hip):
    text = f"#include <hip/hip_runtime.h>\nvoid f() {{ {cuda} }}\n"
    result = port(text, mapping, launch="ggl")
    assert result.text == f"#include <hip/hip_runtime.h>\nvoid f() {{ {hip} }}\n"
    assert [r.hip for r in result.references if r.family == "launch"] == ["hipLaunchKernelGGL"]
    assert port(result.text, mapping, launch="ggl").text == result.text


def test_multiline_launch_keeps_line_count(mapping):
    text = (
        "#include <hip/hip_runtime.h>\n"
        "void f() {\n"
        "  k<T, 2><<<grid,\n"
        "            block, 0,\n"
        "            stream>>>(\n"
        "      a,\n"
        "      b);\n"
        "}\n"
    )
    out = port(text, mapping, launch="ggl").text
    assert out.count("\n") == text.count("\n")
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<T, 2>), dim3(grid)," in out
    assert out.splitlines()[5] == "      a,"
    compact = " ".join(out.split())
    assert "dim3(grid), dim3(block), 0, stream, a, b);" in compact


def test_unparseable_launch_is_kept_with_a_note(mapping):
    text = "#include <hip/hip_runtime.h>\n#define L(k) k<<<1, 1>>>\n"
    result = port(text, mapping, launch="ggl")
    assert result.text == text
    [launch] = [r for r in result.references if r.family == "launch"]
    assert launch.hip == "<<<>>>" and launch.note


def test_off_regions_and_skip_file(mapping):
    text = (
        "#include <hip/hip_runtime.h>\n"
        "void f() {\n"
        "  // rocport: off\n"
        "  cudaFree(p); k<<<1, 1>>>(p);\n"
        "  /* rocport: on */\n"
        "  cudaFree(p);\n"
        "}\n"
    )
    result = port(text, mapping, launch="ggl")
    lines = result.text.splitlines()
    assert lines[3] == "  cudaFree(p); k<<<1, 1>>>(p);"
    assert lines[5] == "  hipFree(p);"
    assert refs(result) == [("cudaFree", 6, 3)]

    skipped = "// generated file\n// rocport: skip-file\n#include <cuda_runtime.h>\ncudaFree(p);\n"
    result = port(skipped, mapping)
    assert result.text is skipped and result.references == []
    late = "#include <cuda_runtime.h>\n// rocport: skip-file\ncudaFree(p);\n"
    assert "hipFree" in port(late, mapping).text  # only the opening comments count


def test_unterminated_off_region_runs_to_end(mapping):
    text = "#include <hip/hip_runtime.h>\n// rocport: off\ncudaFree(p);\n"
    assert port(text, mapping).text == text


def test_unknown_and_unsupported_are_reported_and_kept(mapping):
    text = (
        "#include <hip/hip_runtime.h>\nvoid f() {\n  cudaNoSuchThing(1);\n    cudaFooBar(2);\n}\n"
    )
    result = port(text, mapping)
    assert result.text == text
    assert refs(result, Outcome.UNSUPPORTED) == [("cudaNoSuchThing", 3, 3)]
    assert refs(result, Outcome.UNKNOWN) == [("cudaFooBar", 4, 5)]


def test_own_macros_are_not_unknown(mapping):
    text = (
        "#include <cuda_runtime.h>\n"
        "#define CUDA_CHECK(x) do { if ((x) != cudaSuccess) abort(); } while (0)\n"
        "void f() { CUDA_CHECK(cudaFree(p)); CUDA_OTHER(1); }\n"
    )
    result = port(text, mapping)
    assert refs(result, Outcome.UNKNOWN) == [("CUDA_OTHER", 3, 37)]
    shared = port(text, mapping, local_names=frozenset({"CUDA_OTHER"}))
    assert refs(shared, Outcome.UNKNOWN) == []


def test_project_names_win_over_data(mapping):
    text = "#include <hip/hip_runtime.h>\nvoid f() { initCuda(); cudaFree(p); }\n"
    result = port(text, mapping, extra_names=(("initCuda", "initHip"), ("cudaFree", "myHipFree")))
    assert "initHip(); myHipFree(p);" in result.text
    assert {r.family for r in result.references if r.name in ("initCuda", "cudaFree")} == {
        "project"
    }


def test_namespace_renamed_only_as_a_namespace(mapping):
    text = (
        "#include <hip/hip_runtime.h>\n"
        "using namespace cub;\n"
        "void f() { cub::DeviceReduce::Sum(t, n, a, b, c); int cub = 0; }\n"
    )
    out = port(text, mapping).text.splitlines()
    assert out[1] == "using namespace hipcub;"
    assert out[2] == "void f() { hipcub::DeviceReduce::Sum(t, n, a, b, c); int cub = 0; }"


def test_warp_size_and_hip_code_stay(mapping):
    text = (
        "#include <hip/hip_runtime.h>\n"
        "__global__ void k(int* o) { o[threadIdx.x] = warpSize; hipDeviceSynchronize(); }\n"
    )
    result = port(text, mapping)
    assert result.text == text


def test_line_and_column_are_one_based_in_the_input(mapping):
    text = "#include <hip/hip_runtime.h>\n\n\tcudaStream_t s; cudaStreamCreate(&s);\n"
    result = port(text, mapping)
    assert refs(result) == [("cudaStream_t", 3, 2), ("cudaStreamCreate", 3, 18)]
    assert [r.hip for r in result.references] == ["hipStream_t", "hipStreamCreate"]


def test_rocm_52_targets_older_forms():
    mapping = load_mapping(
        rocm="5.2", extra={"__shfl_xor_sync": {"hip": "__shfl_xor", "transform": "drop_first_arg"}}
    )
    text = "__device__ int f(int v) { return __shfl_xor_sync(~0u, v, 1); }\n"
    result = port(text, mapping, rocm="5.2")
    assert "return __shfl_xor(v, 1);" in result.text


def test_ggl_keeps_comments_and_continuations(mapping):
    text = (
        "#include <hip/hip_runtime.h>\n"
        "#define LAUNCH(k, n, ...) \\\n"
        "  k<<<(n) / 256, /* threads */ 256>>>(__VA_ARGS__)\n"
        "void f() {\n"
        "  k<<<g, // one block per row\n"
        "      b>>>(x);\n"
        "}\n"
    )
    out = port(text, mapping, launch="ggl").text.splitlines()
    assert (
        out[2]
        == "  hipLaunchKernelGGL(k, dim3((n) / 256), /* threads */ dim3(256), 0, 0, __VA_ARGS__)"
    )
    assert out[4:6] == [
        "  hipLaunchKernelGGL(k, dim3(g), // one block per row",
        "      dim3(b), 0, 0, x);",
    ]


def test_inserted_runtime_include_keeps_crlf_line_endings() -> None:
    from rocport.port.mapping import load_mapping
    from rocport.port.model import PortOptions
    from rocport.port.translator import translate

    text = "// kernel\r\n__global__ void k(float* p) { cudaFree(p); }\r\n"
    out = translate(text, path="k.cu", mapping=load_mapping(rocm="6.4"), options=PortOptions()).text
    assert "hip/hip_runtime.h" in out
    assert out.count("\n") == out.count("\r\n"), repr(out)


# -- inserted lines are lines of their own; comments in dropped code stay ----------------------


@pytest.mark.parametrize(
    "head",
    [
        "// Debug switch \\\n#define DEBUG_SYNC 1\n",  # a comment continued by a backslash
        "// Debug switch \\  \n#define DEBUG_SYNC 1\n",  # spaces after it: still a splice
        "// Debug switch \\\r\n#define DEBUG_SYNC 1\r\n",
        "#pragma once /* a comment\n#define DEBUG_SYNC 1 */\n",
        "#pragma once \\\n  // continued\n",
        "/* one */ /* two \\\n*/ // three \\\n#define DEBUG_SYNC 1\n",
    ],
)
def test_inserted_include_never_joins_a_continued_line(mapping, head):
    text = head + "__global__ void k() {}\n"
    result = port(text, mapping)
    assert (
        result.text.replace("#include <hip/hip_runtime.h>\r\n", "").replace(
            "#include <hip/hip_runtime.h>\n", ""
        )
        == text
    )
    at = result.text.index("#include <hip/hip_runtime.h>")
    before = result.text[:at]
    assert before == head or before == ""
    assert not before.rstrip("\r\n \t").endswith("\\")


def test_inserted_include_goes_after_the_byte_order_mark(mapping):
    for text in ("\ufeff__global__ void k() {}\n", "\ufeff// c\n__global__ void k() {}\n"):
        result = port(text, mapping)
        assert result.text.startswith("\ufeff")
        assert result.text.count("\ufeff") == 1
        lines = result.text.removeprefix("\ufeff").splitlines()
        assert lines[result.inserted_lines[0] - 1] == "#include <hip/hip_runtime.h>"


def test_comments_inside_a_dropped_mask_stay(mapping):
    text = (
        "__global__ void k(float v) {\n"
        "  v += __shfl_down_sync(FULL /* all lanes */, v, 1);\n"
        "  v += __shfl_down_sync(FULL // every lane\n"
        "      , v, 1);\n"
        "}\n"
    )
    result = port(text, mapping, warp_sync="mask-free")
    assert "__shfl_down(/* all lanes */ v, 1)" in result.text
    assert "// every lane\n" in result.text and "FULL" not in result.text
    assert result.text.count("\n") == text.count("\n") + len(result.inserted_lines)
    assert port(result.text, mapping, warp_sync="mask-free").text == result.text


def test_a_cuda_name_inside_a_mapped_namespace_is_renamed_at_once(mapping) -> None:
    """``cub::cudaMalloc`` -> ``hipcub::hipMalloc`` in one port: leaving ``cudaMalloc`` for a
    second port to rename would make porting a port change it (found by hypothesis)."""
    once = port("cub::cudaMalloc(&p, n);\n", mapping).text
    assert "hipcub::hipMalloc(&p, n);" in once
    assert port(once, mapping).text == once


def test_a_kernel_template_with_several_arguments_is_cast_whole(mapping):
    """ggml's mmq.cuh: cudaFuncSetAttribute(mul_mat_q<type, mmq_x, MMQ_NWARPS, false>, ...):
    the commas of the template argument list do not end the argument that gets the cast."""
    text = (
        "void f() {\n"
        "  cudaFuncSetAttribute(mul_mat_q<type, mmq_x, N, false>, "
        "cudaFuncAttributeMaxDynamicSharedMemorySize, shmem);\n"
        "  cudaFuncSetAttribute(ns::k<a<b, c>, (x > y)>, "
        "cudaFuncAttributePreferredSharedMemoryCarveout, 0);\n"
        "  cudaFuncSetCacheConfig(k<T, 2>, cudaFuncCachePreferL1);\n"
        "  cudaFuncSetAttribute(p < q, r, 0);\n"  # no template-id: left as split
        "}\n"
    )
    result = port(text, mapping)
    lines = [line for line in result.text.splitlines() if "hipFunc" in line]
    assert lines[0] == (
        "  hipFuncSetAttribute(reinterpret_cast<const void*>(mul_mat_q<type, mmq_x, N, false>), "
        "hipFuncAttributeMaxDynamicSharedMemorySize, shmem);"
    )
    assert lines[1].startswith(
        "  hipFuncSetAttribute(reinterpret_cast<const void*>(ns::k<a<b, c>, (x > y)>), "
    )
    assert lines[2] == (
        "  hipFuncSetCacheConfig(reinterpret_cast<const void*>(k<T, 2>), hipFuncCachePreferL1);"
    )
    assert lines[3] == "  hipFuncSetAttribute(reinterpret_cast<const void*>(p < q), r, 0);"
    assert port(result.text, mapping).text == result.text


def test_nvml_calls_are_reported_unknown_not_passed_silently(mapping):
    """llm.c's llmc/mfu.h reads power, clocks and temperatures through NVML, which ROCm answers
    with another API (amdsmi): its names are CUDA-looking (family nvml), while the project's own
    nvml_check and its nvmlCheck macro are not."""
    text = (
        "#include <nvml.h>\n"
        "#define nvmlCheck(err) (nvml_check(err, __FILE__, __LINE__))\n"
        "inline void nvml_check(nvmlReturn_t status, const char* file, int line) {\n"
        '  if (status != NVML_SUCCESS) printf("%s\\n", nvmlErrorString(status));\n}\n'
        "unsigned int power(nvmlDevice_t device) {\n"
        "  unsigned int p; nvmlCheck(nvmlDeviceGetPowerUsage(device, &p)); return p;\n}\n"
    )
    result = port(text, mapping)
    assert result.text == text
    found = [(r.name, r.outcome, r.family) for r in result.references]
    assert found == [
        ("nvml.h", Outcome.UNKNOWN, "include"),
        ("nvmlReturn_t", Outcome.UNKNOWN, "nvml"),
        ("NVML_SUCCESS", Outcome.UNKNOWN, "nvml"),
        ("nvmlErrorString", Outcome.UNKNOWN, "nvml"),
        ("nvmlDevice_t", Outcome.UNKNOWN, "nvml"),
        ("nvmlDeviceGetPowerUsage", Outcome.UNKNOWN, "nvml"),
    ]


def test_a_projects_hip_shim_define_stays_as_it_is(mapping):
    # ggml's vendors/hip.h: renamed, the name would become `#define hipStreamNonBlocking
    # hipStreamNonBlocking`, which replaces HIP's own macro (0x01)
    text = (
        "#include <cuda_runtime.h>\n"
        "#define cudaStreamNonBlocking hipStreamNonBlocking\n"
        "  #  define cudaMemcpy hipMemcpy // a comment after it\n"
        "#define cudaFree myFree\n"
        "void f(void** p) { cudaStreamCreateWithFlags(0, cudaStreamNonBlocking); }\n"
    )
    out = port(text, mapping).text
    assert out.splitlines()[1:4] == [
        "#define cudaStreamNonBlocking hipStreamNonBlocking",
        "  #  define cudaMemcpy hipMemcpy // a comment after it",
        "#define hipFree myFree",  # a project's own replacement: renamed with the calls
    ]
    assert "hipStreamCreateWithFlags(0, hipStreamNonBlocking);" in out
    assert port(out, mapping).text == out
