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
    assert lines[:2] == [
        "NVCCFLAGS := -O3 --offload-arch=gfx90a -fPIC -Wall \\",
        " -Rpass-analysis=kernel-resource-usage",
    ]
    assert lines[2] == "GENCODE_FLAGS += --offload-arch=gfx90a"
    assert lines[4] == "\t$(NVCC) $(NVCCFLAGS) -fgpu-rdc -c $< -o $@"
    assert [r for r in out.references if r.outcome is Outcome.UNSUPPORTED] == []
    dropped = next(r for r in out.references if r.name == "-maxrregcount 32")
    assert dropped.outcome is Outcome.TRANSLATED and "__launch_bounds__" in dropped.note


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


def test_other_mentions_of_nvcc_are_reported_but_messages() -> None:
    """What $(info), $(warning) and $(error) print is text for the user (llm.c's Makefile says
    "nvcc found" that way): left alone and not reported."""
    out = migrate(
        "$(info nvcc found)\nifeq ($(shell which nvcc),)\n$(error no CUDA)\nendif\n"
        "X := $(NVCC_FLAGS) $(warning nvcc -G is slow)\n",
        OPTIONS,
    )
    assert out.text.startswith("$(info nvcc found)\nifeq ($(shell which hipcc),)")
    assert "$(warning nvcc -G is slow)" in out.text
    assert [(r.line, r.outcome) for r in out.references] == [(2, Outcome.TRANSLATED)]


def test_nvcc_options_built_by_make_functions_are_reported() -> None:
    text = (
        "SMS ?= 70 80\n"
        "$(foreach sm,$(SMS),$(eval GENCODE_FLAGS += -gencode arch=compute_$(sm),code=sm_$(sm)))\n"
    )
    out = migrate(text, OPTIONS)
    assert out.text == text
    assert [(r.line, r.outcome) for r in out.references] == [(2, Outcome.UNKNOWN)]


def test_lines_that_are_not_nvcc_commands_stay_byte_identical() -> None:
    text = (
        "NVCC := nvcc\n"
        "image:\n"
        "\tdocker build --build-arg COMPUTE=${COMPUTE} . -t ${IMAGE_NAME}\n"
        "\ttar -x -v -f a.tar\n"
        "\tcuobjdump -ptx -fun f a.out > a.ptx\n"
    )
    out = migrate(text, OPTIONS)
    assert out.text.splitlines()[2:] == text.splitlines()[2:]


def test_nvcc_only_options_leave_the_hipcc_command() -> None:
    out = port("""\
        NVCC := nvcc
        %.fatbin: %.cu
        \t$(NVCC) -O2 -Xptxas -dlcm=cg -fatbin $< -o $@ -lm -lrt -lmpi -L/opt/x -Wl,-rpath,/x
    """)
    assert out.text.splitlines()[2] == (
        "\t$(NVCC) -O2 --genco $< -o $@ -lm -lrt -lmpi -L/opt/x -Wl,-rpath,/x"
    )
    assert [r.name for r in out.references if r.outcome is not Outcome.TRANSLATED] == []


def test_variables_on_an_nvcc_command_line_hold_nvcc_options() -> None:
    out = port("""\
        KERNEL_DIM = -arch sm_35 -maxrregcount 32
        k: k.cu
        \tnvcc $(KERNEL_DIM) k.cu -o k
    """)
    assert out.text.splitlines()[0] == "KERNEL_DIM = --offload-arch=gfx90a"


def test_host_compilers_of_a_cuda_makefile_get_the_hip_platform() -> None:
    out = port("""\
        include ../common/make.config
        CC = gcc
        LINK := g++ -fPIC
        a: a.o k.o
        \t$(CC) $(CFLAGS) a.o k.o -o a -L$(CUDA_LIB_DIR) -lcudart
        a.o: a.c
        \t@gcc -O2 -c a.c
        k.o: k.cu
        \tnvcc -c k.cu
    """)
    lines = out.text.splitlines()
    added = "-D__HIP_PLATFORM_AMD__ -I/opt/rocm/include"
    assert lines[2] == "LINK := g++ -fPIC"  # the commands get it, not the variable
    assert lines[4] == f"\t$(CC) {added} $(CFLAGS) a.o k.o -o a -L$(CUDA_LIB_DIR) -lamdhip64"
    assert lines[6] == f"\t@gcc {added} -O2 -c a.c"
    assert migrate(out.text, OPTIONS).text == out.text


def test_host_compiler_keeps_a_platform_macro_it_already_gets() -> None:
    text = "CFLAGS = -I$(CUDA_PATH)/include\na.o: a.c\n\tgcc $(CFLAGS) -c a.c\n"
    lines = migrate(text, OPTIONS).text.splitlines()
    assert lines[0] == "CFLAGS = -I$(ROCM_PATH)/include -D__HIP_PLATFORM_AMD__"
    assert lines[2] == "\tgcc $(CFLAGS) -c a.c"


def test_install_variable_set_from_another_is_not_recursive() -> None:
    out = port("""\
        CUDA_PATH ?= /usr/local/cuda
        CUDA_HOME = $(CUDA_PATH)
        CUDA_ROOT ?= ${CUDA_HOME}
    """)
    assert out.text == "ROCM_PATH ?= /opt/rocm\nROCM_PATH ?= /opt/rocm\nROCM_PATH ?= /opt/rocm\n"


def test_nvcc_paths_in_make_functions_become_hipcc() -> None:
    out = port("""\
        ifneq ("$(wildcard /usr/bin/nvcc)", "")
        CUDAPATH ?= /usr
        else ifneq ("$(wildcard /usr/local/cuda/bin/nvcc)", "")
        CUDAPATH ?= /usr/local/cuda
        endif
    """)
    lines = out.text.splitlines()
    assert lines[0] == 'ifneq ("$(wildcard /usr/bin/hipcc)", "")'
    assert lines[2] == 'else ifneq ("$(wildcard /opt/rocm/bin/hipcc)", "")'
    assert lines[3] == "CUDAPATH ?= /opt/rocm"


def test_tab_indented_assignments_outside_rules_are_assignments() -> None:
    """Rodinia's common.mk: ``\\tNVCCFLAGS += ...`` inside ``ifeq`` before any rule."""
    out = port("""\
        ifeq ($(dbg),1)
        \tNVCCFLAGS += -D_DEBUG
        else
        \tNVCCFLAGS += --compiler-options -fno-strict-aliasing
        endif
        a.o: a.cu
        \t$(VERBOSE)$(NVCC) --compiler-options -fPIC -cubin $<
        \t@nvcc -c $<
    """)
    lines = out.text.splitlines()
    assert lines[3] == "\tNVCCFLAGS += -fno-strict-aliasing"
    assert lines[6] == "\t$(VERBOSE)$(NVCC) -fPIC --genco $<"
    assert lines[7] == "\t@hipcc -c $<"
    assert [r for r in out.references if r.outcome is not Outcome.TRANSLATED] == []


def test_objects_left_to_make_s_built_in_rules_get_the_platform_through_cppflags() -> None:
    """Rodinia's huffman: stats_logger.o has no rule of the file (its ``.o:.cpp`` line is no
    suffix rule), so make's built-in rule compiles it, reading CPPFLAGS."""
    out = port("""\
        NVCC=nvcc
        OBJ = main.o stats_logger.o
        app: $(OBJ)
        \t$(NVCC) $(OBJ) -o app
        main.o: main.cu
        \t$(NVCC) -c main.cu
    """)
    assert out.text.endswith("\nCPPFLAGS += -D__HIP_PLATFORM_AMD__ -I/opt/rocm/include\n")
    assert migrate(out.text, OPTIONS).text == out.text


def test_cppflags_are_left_when_every_object_has_a_rule() -> None:
    for text in (
        "NVCC=nvcc\napp: main.o\n\t$(NVCC) main.o -o app\nmain.o: main.cu\n\t$(NVCC) -c main.cu\n",
        "NVCC=nvcc\napp: a.o b.o\n\t$(NVCC) $^ -o app\n%.o: %.cu\n\t$(NVCC) -c $<\n",
        "CC=gcc\napp: a.o\n\t$(CC) a.o -o app\n",  # not a CUDA Makefile
    ):
        assert "CPPFLAGS" not in migrate(text, OPTIONS).text


def test_link_commands_get_the_libraries_the_ported_sources_need() -> None:
    """llm.c's shape: NVTX 3 is header-only, so its Makefile links nothing for it; the port's
    rocTX calls need libroctx64 on each hipcc command that links, not on compile-only ones."""
    text = textwrap.dedent("""\
        NVCC := $(shell which nvcc 2>/dev/null)
        NVCC_LDFLAGS = -lcublas -lcublasLt
        CUDA_OUTPUT_FILE = -o $@
        COMPILE_ONLY = -c
        $(NVCC_CUDNN): llmc/cudnn_att.cpp
        \t$(NVCC) -c $(NVCC_FLAGS) $^ -o $@
        train_gpt2cu: train_gpt2.cu $(NVCC_CUDNN)
        \t$(NVCC) $(NVCC_FLAGS) $^ $(NVCC_LDFLAGS) $(CUDA_OUTPUT_FILE)
        other.o: other.cu
        \t$(NVCC) $(COMPILE_ONLY) $< -o $@ && $(NVCC) other.o -o other
    """)
    needs = PortOptions(offload_arch=("gfx90a",), link_needs=("roctx64",))
    out = migrate(text, needs)
    lines = out.text.splitlines()
    assert lines[5] == "\t$(NVCC) -c $(NVCC_FLAGS) $^ -o $@"
    assert lines[7] == "\t$(NVCC) $(NVCC_FLAGS) $^ $(NVCC_LDFLAGS) $(CUDA_OUTPUT_FILE) -lroctx64"
    assert lines[9] == "\t$(NVCC) $(COMPILE_ONLY) $< -o $@ && $(NVCC) other.o -o other -lroctx64"
    added = [r for r in out.references if r.name == "-lroctx64"]
    assert [(r.line, r.outcome, r.family) for r in added] == [
        (8, Outcome.TRANSLATED, "link"),
        (10, Outcome.TRANSLATED, "link"),
    ]
    assert "header-only" in added[0].note
    assert migrate(text, OPTIONS).text.count("roctx64") == 0  # no rocTX call, no library
    assert migrate(out.text, needs).text == out.text  # porting twice adds nothing more


def test_a_link_command_that_links_the_library_already_gets_it_once() -> None:
    text = "LIBS = -lnvToolsExt\napp: a.cu\n\tnvcc $< $(LIBS) -o $@\n"
    out = migrate(text, PortOptions(offload_arch=("gfx90a",), link_needs=("roctx64",)))
    assert out.text == "LIBS = -lroctx64\napp: a.cu\n\thipcc $< $(LIBS) -o $@\n"
