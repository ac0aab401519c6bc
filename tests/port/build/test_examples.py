"""The bundled examples' build files, migrated, match the reviewed expected files, and any mix of
CUDA CMake constructs migrates without touching comments and only once."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocport.port.build import migrate
from rocport.port.model import Outcome, PortOptions

HERE = Path(__file__).parent
EXAMPLES = HERE.parents[2] / "examples"
OPTIONS = PortOptions(offload_arch=("gfx90a", "gfx942"))


@pytest.mark.parametrize(
    ("example", "name"), [("cmake-project", "CMakeLists.txt"), ("make-project", "Makefile")]
)
def test_example_build_file_matches_expected(example: str, name: str) -> None:
    source = EXAMPLES / example / name
    out = migrate(source, source.read_text(), OPTIONS)
    assert out.text == (HERE / "expected" / f"{example}.{name}").read_text()
    assert all(r.outcome is Outcome.TRANSLATED for r in out.references)


FRAGMENTS = [
    "project(p LANGUAGES CXX CUDA)",
    "enable_language(CUDA)",
    "find_package(CUDAToolkit REQUIRED)",
    "set(CMAKE_CUDA_ARCHITECTURES 80 86)",
    'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --use_fast_math -Xptxas -v")',
    "add_library(k STATIC k.cu)",
    "add_executable(app main.cpp extra.cu)",
    "set_target_properties(k PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_STANDARD 17)",
    "target_compile_options(k PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo;-G>)",
    "target_link_libraries(app PRIVATE k CUDA::cudart CUDA::cufft CUDA::cupti)",
    "if(CMAKE_CUDA_COMPILER_ID STREQUAL NVIDIA)\n  message(STATUS nvcc)\nendif()",
    "set(CMAKE_CUDA_HOST_COMPILER g++)",
    "list(APPEND CUDA_NVCC_FLAGS -arch=sm_70)",
]
COMMENTS = ["# CUDA::cublas stays", "#[[ enable_language(CUDA) ]]", "# set(CMAKE_CUDA_FLAGS -G)"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS + COMMENTS), max_size=10))
def test_any_mix_migrates_once_and_keeps_comments(parts: list[str]) -> None:
    text = "\n".join(parts) + "\n"
    once = migrate(Path("CMakeLists.txt"), text, OPTIONS)
    for comment in COMMENTS:
        assert once.text.count(comment) >= text.count(comment)
    assert migrate(Path("CMakeLists.txt"), once.text, OPTIONS).text == once.text
