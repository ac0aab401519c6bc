"""CMake migration (rocport.port.build.cmake): one test per construct."""

from __future__ import annotations

import textwrap

import pytest

from rocport.errors import InputError
from rocport.port.build.cmake import migrate
from rocport.port.model import Outcome, PortOptions

OPTIONS = PortOptions(offload_arch=("gfx90a", "gfx942"))


def port(text: str, options: PortOptions = OPTIONS):
    return migrate(textwrap.dedent(text), options)


def refs(result, outcome: Outcome | None = None) -> list[tuple[int, str, str | None]]:
    return [
        (r.line, r.name, r.hip)
        for r in result.references
        if outcome is None or r.outcome is outcome
    ]


def test_project_languages_cuda_becomes_hip_and_minimum_version_rises() -> None:
    out = port("""\
        cmake_minimum_required(VERSION 3.18)
        project(app VERSION 2.1 LANGUAGES CXX CUDA)
    """)
    assert (
        out.text
        == "cmake_minimum_required(VERSION 3.21)\nproject(app VERSION 2.1 LANGUAGES CXX HIP)\n"
    )
    assert (1, "3.18", "3.21") in refs(out)


def test_project_without_cxx_gets_cxx_for_hip_config() -> None:
    assert port("project(k CUDA)\n").text == "project(k CXX HIP)\n"


def test_version_range_keeps_its_maximum_and_new_enough_minimum_stays() -> None:
    assert port(
        "cmake_minimum_required(VERSION 3.18...3.28)\nproject(a CXX CUDA)\n"
    ).text.startswith("cmake_minimum_required(VERSION 3.21...3.28)")
    assert port("cmake_minimum_required(VERSION 3.24)\nproject(a CXX CUDA)\n").text.startswith(
        "cmake_minimum_required(VERSION 3.24)"
    )


def test_no_version_bump_without_the_hip_language() -> None:
    assert port("cmake_minimum_required(VERSION 3.10)\nproject(a CXX)\n").references == []


def test_enable_and_check_language() -> None:
    out = port(
        "include(CheckLanguage)\n"
        "check_language(CUDA)\n"
        "if(CMAKE_CUDA_COMPILER)\n"
        "  enable_language(CUDA)\n"
        "endif()\n"
    )
    assert out.text == (
        "include(CheckLanguage)\n"
        "check_language(HIP)\n"
        "if(CMAKE_HIP_COMPILER)\n"
        "  enable_language(HIP)\n"
        "endif()\n"
    )


def test_comments_are_never_edited() -> None:
    text = """\
        # project(x CUDA) and CUDA::cublas in a comment
        #[[ enable_language(CUDA)
            set(CMAKE_CUDA_ARCHITECTURES 80) ]]
        message(STATUS [=[CUDA::cublas in a bracket argument]=]) # CMAKE_CUDA_FLAGS
    """
    out = port(text)
    assert out.text == textwrap.dedent(text)
    assert out.references == []


def test_find_package_cuda_toolkit_finds_hip_and_each_library_used() -> None:
    out = port("""\
        find_package(CUDAToolkit 12.0 REQUIRED)
        add_executable(a main.cpp)
        target_link_libraries(a PRIVATE CUDA::cudart CUDA::cublas CUDA::cufft CUDA::curand
                                        CUDA::cusparse CUDA::cusolver CUDA::nvrtc)
    """)
    lines = out.text.splitlines()
    assert lines[:7] == [
        "find_package(hip REQUIRED)",
        "find_package(hipblas REQUIRED)",
        "find_package(hipfft REQUIRED)",
        "find_package(hiprand REQUIRED)",
        "find_package(hiprtc REQUIRED)",
        "find_package(hipsolver REQUIRED)",
        "find_package(hipsparse REQUIRED)",
    ]
    assert "hip::host roc::hipblas hip::hipfft hip::hiprand" in out.text
    assert "roc::hipsparse roc::hipsolver hiprtc::hiprtc)" in out.text


def test_quiet_find_package_stays_optional() -> None:
    assert port("find_package(CUDAToolkit QUIET)\n").text == "find_package(hip QUIET)\n"


def test_libraries_found_in_a_subdirectory_file_without_find_package() -> None:
    out = port("""\
        add_library(k k.cu)
        target_link_libraries(k PUBLIC CUDA::cublas)
    """)
    assert out.text.splitlines()[2] == "find_package(hipblas REQUIRED)"
    assert out.text.splitlines()[3] == "target_link_libraries(k PUBLIC roc::hipblas)"


def test_rocblas_variant() -> None:
    out = port(
        "find_package(CUDAToolkit)\ntarget_link_libraries(a CUDA::cublas)\n",
        PortOptions(blas="rocblas"),
    )
    assert (
        out.text
        == "find_package(hip)\nfind_package(rocblas)\ntarget_link_libraries(a roc::rocblas)\n"
    )


def test_unsupported_and_dropped_targets() -> None:
    out = port("target_link_libraries(a CUDA::cudart CUDA::culibos CUDA::cupti)\n")
    assert (
        out.text == "find_package(hip REQUIRED)\ntarget_link_libraries(a hip::host CUDA::cupti)\n"
    )
    assert refs(out, Outcome.UNSUPPORTED) == [(1, "CUDA::cupti", None)]


def test_plain_library_names_in_link_commands() -> None:
    assert (
        port("target_link_libraries(a cudart cublas m)\n").text
        == "target_link_libraries(a amdhip64 hipblas m)\n"
    )


def test_architectures_variable_cache_and_properties() -> None:
    out = port("""\
        set(CMAKE_CUDA_ARCHITECTURES 70 80 CACHE STRING "GPU targets")
        set(CMAKE_CUDA_ARCHITECTURES "80;86")
        set_target_properties(a PROPERTIES CUDA_ARCHITECTURES native CUDA_STANDARD 17)
        set_property(TARGET b PROPERTY CUDA_ARCHITECTURES 90)
    """)
    assert out.text == textwrap.dedent("""\
        set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942" CACHE STRING "GPU targets")
        set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942")
        set_target_properties(a PROPERTIES HIP_ARCHITECTURES "gfx90a;gfx942" HIP_STANDARD 17)
        set_property(TARGET b PROPERTY HIP_ARCHITECTURES "gfx90a;gfx942")
    """)


def test_sources_gathered_by_aux_source_directory_and_glob_become_hip() -> None:
    """aux_source_directory stops seeing .cu files once CUDA is no longer enabled; globbed .cu
    files need the HIP language, or the target does not compile (or link) them."""
    out = port("""\
        project(p LANGUAGES CXX CUDA)
        aux_source_directory(${PROJECT_SOURCE_DIR}/src SRC)
        file(GLOB KERNELS CONFIGURE_DEPENDS kernels/*.cu)
        file(GLOB_RECURSE MIXED RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} *.cpp *.cu)
        add_executable(a main.cu ${SRC} ${KERNELS} ${MIXED})
    """)
    lines = out.text.splitlines()
    assert lines[2:5] == [
        'file(GLOB _rocport_SRC_cu "${PROJECT_SOURCE_DIR}/src/*.cu")',
        "list(APPEND SRC ${_rocport_SRC_cu})",
        "set_source_files_properties(${_rocport_SRC_cu} PROPERTIES LANGUAGE HIP)",
    ]
    assert lines[6] == "set_source_files_properties(${KERNELS} PROPERTIES LANGUAGE HIP)"
    assert lines[8:11] == [
        "set(_rocport_MIXED_cu ${MIXED})",
        'list(FILTER _rocport_MIXED_cu INCLUDE REGEX "\\.cu$")',
        "set_source_files_properties(${_rocport_MIXED_cu} PROPERTIES LANGUAGE HIP)",
    ]
    assert migrate(out.text, OPTIONS).text == out.text  # a second port adds nothing


def test_aux_source_directory_without_cuda_is_left_alone() -> None:
    text = "project(p CXX)\naux_source_directory(src SRC)\nadd_executable(a ${SRC})\n"
    assert migrate(text, OPTIONS).text == text


def test_standard_variables_and_compile_features() -> None:
    out = port(
        "set(CMAKE_CUDA_STANDARD 17)\n"
        "set(CMAKE_CUDA_STANDARD_REQUIRED ON)\n"
        "target_compile_features(a PUBLIC cuda_std_17)\n"
    )
    assert out.text == (
        "set(CMAKE_HIP_STANDARD 17)\n"
        "set(CMAKE_HIP_STANDARD_REQUIRED ON)\n"
        "target_compile_features(a PUBLIC hip_std_17)\n"
    )


def test_flags_variables_are_translated_as_nvcc_command_lines() -> None:
    out = port("""\
        set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -lineinfo --expt-relaxed-constexpr -Xptxas -v")
        string(APPEND CMAKE_CUDA_FLAGS_RELEASE " -Xcompiler=-O3")
    """)
    remarks = "-Rpass-analysis=kernel-resource-usage"
    assert out.text == textwrap.dedent(f"""\
        set(CMAKE_HIP_FLAGS "${{CMAKE_HIP_FLAGS}} -gline-tables-only {remarks}")
        string(APPEND CMAKE_HIP_FLAGS_RELEASE " -O3")
    """)
    assert refs(out, Outcome.UNSUPPORTED) == []


def test_compile_options_in_a_cuda_genex_become_hip_lists() -> None:
    out = port(
        "target_compile_options(a PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math;-G> -Wall)\n"
    )
    assert out.text == (
        "target_compile_options(a PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-flush-denormals-to-zero;"
        "-fno-hip-fp32-correctly-rounded-divide-sqrt;-ffp-contract=fast;-fapprox-func;-g;-O0>"
        " -Wall)\n"
    )


def test_plain_compile_options_map_only_known_nvcc_options() -> None:
    out = port("target_compile_options(a PRIVATE --expt-extended-lambda -Wextra -funknown)\n")
    assert out.text == "target_compile_options(a PRIVATE -Wextra -funknown)\n"
    assert refs(out, Outcome.UNSUPPORTED) == []


def test_generator_expressions() -> None:
    out = port("target_compile_definitions(a PRIVATE $<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:FAST>)\n")
    assert (
        out.text
        == "target_compile_definitions(a PRIVATE $<$<COMPILE_LANG_AND_ID:HIP,Clang>:FAST>)\n"
    )


def test_cu_sources_keep_names_and_get_the_hip_language() -> None:
    out = port("""\
        set(SOURCES main.cpp kernels/a.cu "kernels/b.cu")
        add_executable(app ${SOURCES})
        target_sources(app PRIVATE c.cu kernels/a.cu)
    """)
    assert out.text == textwrap.dedent("""\
        set(SOURCES main.cpp kernels/a.cu "kernels/b.cu")
        set_source_files_properties(kernels/a.cu "kernels/b.cu" PROPERTIES LANGUAGE HIP)
        add_executable(app ${SOURCES})
        target_sources(app PRIVATE c.cu kernels/a.cu)
        set_source_files_properties(c.cu PROPERTIES LANGUAGE HIP)
    """)
    assert out.inserted_lines == [2, 5]


def test_inserted_property_keeps_indentation() -> None:
    out = port("if(WITH_GPU)\n  add_library(k k.cu)\nendif()\n")
    assert out.text == (
        "if(WITH_GPU)\n"
        "  add_library(k k.cu)\n"
        "  set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)\n"
        "endif()\n"
    )


def test_language_cuda_source_property() -> None:
    assert port("set_source_files_properties(a.cpp PROPERTIES LANGUAGE CUDA)\n").text == (
        "set_source_files_properties(a.cpp PROPERTIES LANGUAGE HIP)\n"
    )


def test_separable_compilation_property_becomes_gpu_rdc_options() -> None:
    out = port(
        "set_target_properties(k PROPERTIES CUDA_SEPARABLE_COMPILATION ON"
        " POSITION_INDEPENDENT_CODE ON)\n"
    )
    assert out.text == textwrap.dedent("""\
        set_target_properties(k PROPERTIES POSITION_INDEPENDENT_CODE ON)
        target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)
        target_link_options(k PUBLIC "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")
    """)


def test_separable_compilation_alone_is_commented_out_and_replaced() -> None:
    out = port(
        "set_property(TARGET k PROPERTY CUDA_SEPARABLE_COMPILATION ON)\n"
        "set(CMAKE_CUDA_SEPARABLE_COMPILATION ON)\n"
    )
    assert out.text == textwrap.dedent("""\
        # set_property(TARGET k PROPERTY CUDA_SEPARABLE_COMPILATION ON)
        target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)
        target_link_options(k PUBLIC "$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")
        # set(CMAKE_CUDA_SEPARABLE_COMPILATION ON)
        add_compile_options($<$<COMPILE_LANGUAGE:HIP>:-fgpu-rdc>)
        add_link_options("$<$<LINK_LANGUAGE:HIP>:-fgpu-rdc;--hip-link>")
    """)


def test_host_compiler_setting_is_commented_out() -> None:
    out = port("set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})\n")
    assert out.text == "# set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})\n"
    assert out.references[0].outcome is Outcome.TRANSLATED


def test_legacy_findcuda_commands() -> None:
    out = port("""\
        cmake_minimum_required(VERSION 3.10)
        project(old CXX)
        find_package(CUDA REQUIRED)
        cuda_add_executable(app main.cu OPTIONS -G --expt-relaxed-constexpr)
        target_link_libraries(app ${CUDA_LIBRARIES} ${CUDA_CUBLAS_LIBRARIES} cudadevrt)
    """)
    assert out.text == textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.21)
        project(old CXX)
        find_package(hip REQUIRED)
        find_package(hipblas REQUIRED)
        enable_language(HIP)
        add_executable(app main.cu)
        target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-g;-O0>)
        set_source_files_properties(main.cu PROPERTIES LANGUAGE HIP)
        target_link_libraries(app hip::host roc::hipblas)
    """)
    assert out.inserted_lines == [4, 5, 7, 8]


def test_unknown_cuda_names_are_reported_not_changed() -> None:
    out = port(
        'if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")\n'
        "  target_link_libraries(a CUDA::nvml)\n"
        "endif()\n"
    )
    assert out.text.startswith('if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")')
    assert refs(out, Outcome.UNKNOWN) == [
        (1, "CMAKE_CUDA_COMPILER_ID", None),
        (2, "CUDA::nvml", None),
    ]


def test_cmake_without_cuda_is_left_alone() -> None:
    text = "cmake_minimum_required(VERSION 3.16)\nproject(p CXX)\nadd_executable(p main.cpp)\n"
    out = port(text)
    assert out.text == text and out.references == []


def test_porting_twice_changes_nothing_more() -> None:
    text = """\
        cmake_minimum_required(VERSION 3.18)
        project(app LANGUAGES CXX CUDA)
        find_package(CUDAToolkit REQUIRED)
        set(CMAKE_CUDA_ARCHITECTURES 80)
        add_executable(app main.cu)
        set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
        target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublas)
    """
    once = port(text)
    twice = migrate(once.text, OPTIONS)
    assert twice.text == once.text
    assert not [
        r
        for r in twice.references
        if r.hip != r.name
        and r.outcome is Outcome.TRANSLATED
        and r.name != "CUDA_SEPARABLE_COMPILATION"
    ]


def test_syntax_error_is_one_input_error() -> None:
    with pytest.raises(
        InputError, match=r"^CMake syntax error at line 2, column 7: unterminated quoted"
    ):
        migrate('project(p)\nset(A "open\n', OPTIONS)


def test_findcuda_nvcc_flags_become_hip_compile_options() -> None:
    out = port("""\
        set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS} -lineinfo)
        list(APPEND CUDA_NVCC_FLAGS -Xcompiler -fPIC --expt-relaxed-constexpr)
    """)
    assert out.text == textwrap.dedent("""\
        # set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS} -lineinfo)
        add_compile_options("$<$<COMPILE_LANGUAGE:HIP>:-gline-tables-only>")
        # list(APPEND CUDA_NVCC_FLAGS -Xcompiler -fPIC --expt-relaxed-constexpr)
        add_compile_options("$<$<COMPILE_LANGUAGE:HIP>:-fPIC>")
    """)
    assert out.inserted_lines == [2, 4]


def test_other_findcuda_commands_are_reported() -> None:
    out = port("cuda_select_nvcc_arch_flags(ARCH_FLAGS Auto)\n")
    assert out.text == "cuda_select_nvcc_arch_flags(ARCH_FLAGS Auto)\n"
    assert refs(out, Outcome.UNKNOWN) == [(1, "cuda_select_nvcc_arch_flags", None)]


def test_nvtx_targets_link_the_roctx_library_found_once_before_its_first_use() -> None:
    out = port("""\
        add_executable(a a.cu)
        target_link_libraries(a PRIVATE CUDA::nvtx3)
        target_link_libraries(b PRIVATE $<$<BOOL:${TRACE}>:CUDA::nvToolsExt>)
        if(TARGET CUDA::nvtx3)
        endif()
    """)
    find = "find_library(ROCTX64_LIBRARY roctx64 HINTS $ENV{ROCM_PATH}/lib /opt/rocm/lib"
    assert out.text.count("find_library(") == 1
    lines = out.text.splitlines()[2:]  # after add_executable and its LANGUAGE HIP line
    assert lines[0].startswith(find) and lines[0].endswith(" REQUIRED)")
    assert lines[1] == "target_link_libraries(a PRIVATE ${ROCTX64_LIBRARY})"
    assert lines[2] == "target_link_libraries(b PRIVATE $<$<BOOL:${TRACE}>:${ROCTX64_LIBRARY}>)"
    assert lines[3] == "if(TARGET CUDA::nvtx3)"  # no ROCm target: a TARGET test stays CUDA's
    unsupported = [r for r in out.references if r.outcome is Outcome.UNSUPPORTED]
    assert [(r.line, r.name) for r in unsupported] == [(4, "CUDA::nvtx3")]
    assert "TARGET test" in unsupported[0].note


def test_nvtx_target_beside_find_package_cudatoolkit_gets_its_find_library_there() -> None:
    out = port("""\
        find_package(CUDAToolkit REQUIRED)
        target_link_libraries(a PRIVATE CUDA::cudart CUDA::nvtx3)
    """)
    lines = out.text.splitlines()
    assert lines[0] == "find_package(hip REQUIRED)"
    assert lines[1].startswith("find_library(ROCTX64_LIBRARY roctx64 ")
    assert lines[2] == "target_link_libraries(a PRIVATE hip::host ${ROCTX64_LIBRARY})"
