"""nvcc option and link-library translation (rocport.port.build.flags), one case per construct."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocport.port.build import flags
from rocport.port.model import Outcome

TARGETS = ("gfx90a", "gfx942")


def run(
    line: str,
    *,
    targets: tuple[str, ...] | None = TARGETS,
    strict: bool = True,
    blas: str = "hipblas",
):
    words = [flags.Word(m.group(), m.start(), m.end()) for m in re.finditer(r'"[^"]*"|\S+', line)]
    rewrites = flags.translate(words, flags.FlagContext(targets, blas, strict=strict))
    out, i = [], 0
    by_first = {rw.first: rw for rw in rewrites}
    while i < len(words):
        rw = by_first.get(i)
        if rw is None:
            out.append(words[i].text)
            i += 1
        else:
            out.extend(rw.tokens)
            i = rw.last
    return " ".join(out), rewrites


@pytest.mark.parametrize(
    ("nvcc", "hip"),
    [
        ("-arch=sm_80", "--offload-arch=gfx90a --offload-arch=gfx942"),
        ("-arch sm_80", "--offload-arch=gfx90a --offload-arch=gfx942"),
        ("--gpu-architecture=compute_90", "--offload-arch=gfx90a --offload-arch=gfx942"),
        (
            "-gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90",
            "--offload-arch=gfx90a --offload-arch=gfx942",
        ),
        ("-arch=sm_80 -code=sm_80", "--offload-arch=gfx90a --offload-arch=gfx942"),
        ("-Xcompiler -fPIC", "-fPIC"),
        ("-Xcompiler=-fPIC,-Wall", "-fPIC -Wall"),
        ('-Xcompiler "-O2 -g"', "-O2 -g"),
        ("--compiler-options -fopenmp", "-fopenmp"),
        ("-Xcompiler -Wl,-rpath,/x", "-Wl,-rpath,/x"),
        ("-Xlinker -rpath,/opt/x", "-Wl,-rpath,/opt/x"),
        (
            "--use_fast_math",
            "-fgpu-flush-denormals-to-zero -fno-hip-fp32-correctly-rounded-divide-sqrt "
            "-ffp-contract=fast -fapprox-func",
        ),
        ("--ftz=false", "-fno-gpu-flush-denormals-to-zero"),
        ("--prec-div=false", "-fno-hip-fp32-correctly-rounded-divide-sqrt"),
        ("--fmad=false", "-ffp-contract=off"),
        ("-lineinfo", "-gline-tables-only"),
        ("-G", "-g -O0"),
        ("--expt-relaxed-constexpr --expt-extended-lambda -O3", "-O3"),
        ("--extended-lambda", ""),
        ("-rdc=true", "-fgpu-rdc"),
        ("--relocatable-device-code=false", ""),
        ("-dc", "-fgpu-rdc -c"),
        ("-x cu", "-x hip"),
        ("-ccbin g++-12", ""),
        ("--default-stream per-thread", "-fgpu-default-stream=per-thread"),
        ("-U__CUDA_NO_HALF_OPERATORS__", "-U__HIP_NO_HALF_OPERATORS__"),
        ("-U__CUDA_NO_HALF2_OPERATORS__", "-U__HIP_NO_HALF_OPERATORS__"),
        ("-D__CUDA_NO_HALF_CONVERSIONS__=1", "-D__HIP_NO_HALF_CONVERSIONS__=1"),
        ("-U__CUDA_NO_BFLOAT16_CONVERSIONS__", ""),
        (
            "-lcudart -lcublas -lcufft -lcurand -lcusparse -lcusolver",
            "-lamdhip64 -lhipblas -lhipfft -lhiprand -lhipsparse -lhipsolver",
        ),
        ("-lnccl -lnvrtc -lcudnn -lcudadevrt", "-lrccl -lhiprtc -lMIOpen"),
        # NVML has no ROCm library with its API: llm.c's Makefile links it for code that uses
        # NVML only where <nvml.h> exists, and its port links once the flag is gone
        ("-lhipblas -lnvidia-ml -o x", "-lhipblas -o x"),
        (
            "-O3 -std=c++17 -I/x -DNDEBUG -c a.cu -o a.o",
            "-O3 -std=c++17 -I/x -DNDEBUG -c a.cu -o a.o",
        ),
    ],
)
def test_translates(nvcc: str, hip: str) -> None:
    assert run(nvcc)[0] == hip


def test_rocblas_variant() -> None:
    assert run("-lcublas", blas="rocblas")[0] == "-lrocblas"


def test_arch_dropped_when_no_targets_chosen() -> None:
    text, rewrites = run("-O3 -gencode arch=compute_80,code=sm_80", targets=None)
    assert text == "-O3"
    assert rewrites[0].outcome is Outcome.TRANSLATED


@pytest.mark.parametrize(
    "nvcc",
    [
        "-dlink",
        "--frobnicate",
        "-m32",
        "-static",
        "--ftz=maybe",
        "-arch",
    ],
)
def test_unsupported_is_kept_and_reported(nvcc: str) -> None:
    """Kept and reported: no hipcc form, or (``-m32``, ``-static``) refused by the probed hipcc."""
    text, rewrites = run(nvcc)
    assert text == nvcc
    assert [rw.outcome for rw in rewrites] == [Outcome.UNSUPPORTED]
    assert rewrites[0].name == nvcc


def test_unknown_option_only_reported_on_an_nvcc_line() -> None:
    assert run("--frobnicate", strict=False)[1] == []


def test_unsupported_library_is_reported() -> None:
    text, rewrites = run("-lcupti")
    assert (
        text == "-lcupti"
        and rewrites[0].outcome is Outcome.UNSUPPORTED
        and rewrites[0].family == "link"
    )


def test_reference_names_cover_the_whole_option() -> None:
    _, rewrites = run("-O2 -gencode arch=compute_80,code=sm_80")
    assert [(rw.first, rw.last, rw.name) for rw in rewrites] == [
        (1, 3, "-gencode arch=compute_80,code=sm_80")
    ]


plain = st.sampled_from(
    ["-O2", "-g", "-c", "a.cu", "-o", "x.o", "-I.", "-DX=1", "-std=c++17", "-fPIC", "$(FLAGS)"]
)
any_word = st.one_of(
    plain,
    st.sampled_from(
        [
            "-arch=sm_80",
            "-Xcompiler",
            "-lcudart",
            "--use_fast_math",
            "-G",
            "-rdc=true",
            "-x",
            "cu",
            "--bogus",
            "-gencode",
        ]
    ),
)


@given(st.lists(plain, max_size=12))
def test_plain_compiler_options_are_left_alone(words: list[str]) -> None:
    assert run(" ".join(words))[1] == []


@given(st.lists(any_word, max_size=12))
def test_rewrites_are_ordered_and_disjoint(words: list[str]) -> None:
    _, rewrites = run(" ".join(words))
    last = 0
    for rw in rewrites:
        assert last <= rw.first < rw.last <= len(words)
        last = rw.last


@pytest.mark.parametrize(
    ("nvcc", "hip"),
    [
        ("-Xptxas -v", "-Rpass-analysis=kernel-resource-usage"),
        ("-Xptxas -dlcm=cg", ""),
        ("-maxrregcount=64", ""),
        ("-Xnvlink --foo", ""),
        ("-fatbin", "--genco"),
        ("-cubin", "--genco"),
        ("-cuda", "--cuda-host-only -E"),
        ("-ptx", "--cuda-device-only -S"),
    ],
)
def test_nvcc_only_options_are_translated_or_dropped_with_a_note(nvcc: str, hip: str) -> None:
    text, rewrites = run(nvcc)
    assert text == hip
    assert rewrites[0].outcome is Outcome.TRANSLATED and rewrites[0].note


@pytest.mark.parametrize("word", ["-lm", "-lrt", "-lmpi", "-L/opt/x/lib", "-Wl,-rpath,/x", "-O3"])
def test_plain_compiler_and_linker_options_pass(word: str) -> None:
    """Families that the probed hipcc accepted (data/hipcc_options.json) are not reported."""
    text, rewrites = run(word)
    assert text == word and rewrites == []
