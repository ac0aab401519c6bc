"""The build-file entry point: which files are migrated, and with what."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from rocport.port.build import build_system, migrate
from rocport.port.model import PortOptions


@pytest.mark.parametrize(
    ("name", "system"),
    [
        ("CMakeLists.txt", "cmake"),
        ("cmake/cuda.cmake", "cmake"),
        ("Makefile", "make"),
        ("makefile", "make"),
        ("GNUmakefile", "make"),
        ("rules.mk", "make"),
        ("setup.py", "setuptools"),
        ("main.cu", None),
        ("setup.cfg", None),
        ("CMakeCache.txt", None),
        ("Makefile.am", None),
    ],
)
def test_build_system_from_name(name: str, system: str | None) -> None:
    assert build_system(Path(name)) == system


def test_other_files_return_none() -> None:
    assert migrate(Path("kernel.cu"), "__global__ void k() {}\n", PortOptions()) is None


def test_dispatch_uses_the_right_migrator() -> None:
    opts = PortOptions(offload_arch=("gfx942",))
    assert (
        migrate(Path("CMakeLists.txt"), "project(a CXX CUDA)\n", opts).text
        == "project(a CXX HIP)\n"
    )
    assert (
        migrate(Path("x.mk"), "NVCC := nvcc -arch=sm_90\n", opts).text
        == "NVCC := hipcc --offload-arch=gfx942\n"
    )
    assert (
        "IS_HIP_EXTENSION"
        in migrate(
            Path("setup.py"),
            (
                "from torch.utils.cpp_extension import CUDAExtension\n"
                'CUDAExtension("e", ["e.cu"], libraries=["cufft"])\n'
            ),
            opts,
        ).text
    )


@pytest.mark.torch
def test_torch_passes_the_nvcc_key_to_hipcc_on_rocm() -> None:
    """The finding setuptools.py relies on: on ROCm, extra_compile_args['nvcc'] goes to hipcc.

    Reads torch/utils/cpp_extension.py as text (importing torch takes seconds)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip("torch not installed: pip install -e '.[torch]'")
    source = (Path(spec.origin).parent / "utils" / "cpp_extension.py").read_text()
    assert "\nIS_HIP_EXTENSION = " in source
    assert "_join_rocm_home('bin', 'hipcc') if IS_HIP_EXTENSION" in source
    assert "cflags = cflags['nvcc']" in source
    assert "def _get_rocm_arch_flags" in source and "'offload-arch' in flag" in source
