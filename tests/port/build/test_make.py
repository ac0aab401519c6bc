"""Makefile migration (rocport.port.build.make): one test per construct."""

from __future__ import annotations

import textwrap

from rocport.port.build.make import migrate
from rocport.port.model import Outcome, PortOptions

OPTIONS = PortOptions(offload_arch=("gfx90a",))


def port(text: str):
    return migrate(textwrap.dedent(text), OPTIONS)


def test_compiler_variable_and_install_path() -> None:
    out = port("""\
        CUDA_PATH ?= /usr/local/cuda-12.4
        NVCC ?= $(CUDA_PATH)/bin/nvcc
        CUDA_HOME := /usr/local/cuda
    """)
    assert (
        out.text
        == "ROCM_PATH ?= /opt/rocm\nNVCC ?= $(ROCM_PATH)/bin/hipcc\nROCM_PATH := /opt/rocm\n"
    )


def test_bare_nvcc_in_a_recipe_and_in_a_variable() -> None:
    out = migrate("NVCC = nvcc\nk.o: k.cu\n\tnvcc -arch=sm_80 -c $< -o $@\n", OPTIONS)
    assert out.text == "NVCC = hipcc\nk.o: k.cu\n\thipcc --offload-arch=gfx90a -c $< -o $@\n"


def test_flags_in_flag_variables_and_after_the_compiler() -> None:
    out = port("""\
        NVCCFLAGS := -O3 -gencode arch=compute_80,code=sm_80 -Xcompiler -fPIC,-Wall \\
          --expt-extended-lambda -Xptxas -v
        GENCODE_FLAGS += -gencode=arch=compute_90,code=sm_90
        %.o: %.cu
        \t$(NVCC) $(NVCCFLAGS) -rdc=true -maxrregcount 32 -c $< -o $@
    """)
    lines = out.text.splitlines()
    assert lines[:2] == ["NVCCFLAGS := -O3 --offload-arch=gfx90a -fPIC -Wall \\", " -Xptxas -v"]
    assert lines[2] == "GENCODE_FLAGS += --offload-arch=gfx90a"
    assert lines[4] == "\t$(NVCC) $(NVCCFLAGS) -fgpu-rdc -maxrregcount 32 -c $< -o $@"
    unsupported = [(r.line, r.name) for r in out.references if r.outcome is Outcome.UNSUPPORTED]
    assert unsupported == [(2, "-Xptxas -v"), (5, "-maxrregcount 32")]


def test_unknown_options_reported_only_in_nvcc_contexts() -> None:
    out = port("""\
        CXXFLAGS := --weird-host-flag
        NVCCFLAGS := --weird-nvcc-flag
        \tnvcc --weird-recipe-flag a.cu && g++ --weird-host-flag-2 b.cpp
    """)
    names = [r.name for r in out.references if r.outcome is Outcome.UNSUPPORTED]
    assert names == ["--weird-nvcc-flag", "--weird-recipe-flag"]


def test_include_and_library_dirs_and_libraries() -> None:
    out = port("""\
        CXXFLAGS += -I$(CUDA_PATH)/include
        LDFLAGS += -L$(CUDA_PATH)/lib64 -L/usr/local/cuda/targets/x86_64-linux/lib
        LDLIBS += -lcudart -lcublasLt -lnvToolsExt -lm
    """)
    assert out.text == textwrap.dedent("""\
        CXXFLAGS += -I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__
        LDFLAGS += -L$(ROCM_PATH)/lib -L/opt/rocm/lib
        LDLIBS += -lamdhip64 -lhipblaslt -lroctx64 -lm
    """)


def test_platform_macro_not_added_twice() -> None:
    text = "CXXFLAGS += -I$(CUDA_PATH)/include -D__HIP_PLATFORM_AMD__\n"
    assert (
        migrate(text, OPTIONS).text == "CXXFLAGS += -I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__\n"
    )


def test_continuation_lines_and_comments() -> None:
    text = (
        "NVCCFLAGS = -O2 \\\n  -arch=sm_70 # -lcudart stays in this comment\n# nvcc -arch=sm_80\n"
    )
    out = migrate(text, OPTIONS)
    assert out.text == (
        "NVCCFLAGS = -O2 \\\n"
        "  --offload-arch=gfx90a # -lcudart stays in this comment\n"
        "# nvcc -arch=sm_80\n"
    )
    assert [r.line for r in out.references] == [2]


def test_makefile_without_cuda_is_left_alone() -> None:
    text = "CC = gcc\nall: a\n\t$(CC) -O2 -o a a.c -lm\n"
    out = migrate(text, OPTIONS)
    assert out.text == text and out.references == []


def test_porting_twice_changes_nothing_more() -> None:
    text = (
        "CUDA_PATH ?= /usr/local/cuda\n"
        "NVCC ?= $(CUDA_PATH)/bin/nvcc\n"
        "FLAGS = -arch=sm_80 -I$(CUDA_PATH)/include\n"
        "LIBS = -lcudart\n"
    )
    once = migrate(text, OPTIONS)
    twice = migrate(once.text, OPTIONS)
    assert twice.text == once.text and twice.references == []


def test_nvcc_variable_defined_elsewhere_is_still_nvcc() -> None:
    out = migrate("include common.mk\nk.o: k.cu\n\t$(NVCC) --bogus -c $<\n", OPTIONS)
    assert [r.name for r in out.references if r.outcome is Outcome.UNSUPPORTED] == ["--bogus"]


def test_other_mentions_of_nvcc_are_reported() -> None:
    out = migrate("ifeq ($(shell which nvcc),)\n$(error no CUDA)\nendif\n", OPTIONS)
    assert out.text.startswith("ifeq ($(shell which nvcc),)")
    assert [(r.line, r.outcome) for r in out.references] == [(1, Outcome.UNKNOWN)]


def test_nvcc_options_built_by_make_functions_are_reported() -> None:
    text = (
        "SMS ?= 70 80\n"
        "$(foreach sm,$(SMS),$(eval GENCODE_FLAGS += -gencode arch=compute_$(sm),code=sm_$(sm)))\n"
    )
    out = migrate(text, OPTIONS)
    assert out.text == text
    assert [(r.line, r.outcome) for r in out.references] == [(2, Outcome.UNKNOWN)]
