"""Every hipcc option the nvcc table emits is accepted by both HIP toolchains (HIP 5.2 and 6.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocport.check.toolchain import Launcher
from rocport.port.build._data import table

pytestmark = pytest.mark.hipcc
KERNEL = (
    "#include <hip/hip_runtime.h>\n"
    "__global__ void k(float* x) { x[threadIdx.x] = sqrtf(x[0]) / x[1]; }\n"
)


#: options that choose what hipcc writes (a code object, assembly, preprocessed text)
OUTPUT_MODES = (("--genco",), ("--cuda-device-only", "-S"), ("--cuda-host-only", "-E"))
_MODE_WORDS = {w for mode in OUTPUT_MODES for w in mode}


def emitted_compile_options() -> list[str]:
    options: list[str] = []
    for row in table("nvcc_flags")["flags"].values():
        lists = [row.get("hip", [])] + list(row.get("by_value", {}).values())
        for tokens in lists:
            options += [
                t
                for t in tokens
                if t not in ("-x", "hip", "c++", "c", "-c")
                and t not in _MODE_WORDS
                and t not in options
            ]
    options += [f"-U{row['hip']}" for row in table("nvcc_flags")["macros"].values() if row["hip"]]
    return options


def _compile(launcher: Launcher, cwd: Path, *extra: str) -> None:
    (cwd / "k.cu").write_text(KERNEL)
    args = ["--offload-arch=gfx90a", *emitted_compile_options(), *extra, "-c", "k.cu", "-o", "k.o"]
    result = launcher.run(launcher.hipcc, args, cwd=cwd, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "argument unused" not in result.stderr and "unknown argument" not in result.stderr, (
        result.stderr
    )


def test_options_accepted_by_hip_5_2(scratch: Path, hipcc52: Launcher) -> None:
    _compile(hipcc52, scratch)


def test_options_accepted_by_hip_6_4(scratch: Path, sid: Launcher) -> None:
    _compile(sid, scratch)


def test_emitted_options_cover_the_table() -> None:
    options = emitted_compile_options()
    assert "-fgpu-rdc" in options and "-gline-tables-only" in options and len(options) >= 15


def test_output_modes_are_all_the_table_emits() -> None:
    emitted = {
        tuple(tokens)
        for row in table("nvcc_flags")["flags"].values()
        for tokens in [row.get("hip", []), *row.get("by_value", {}).values()]
        if set(tokens) & _MODE_WORDS
    }
    assert emitted == set(OUTPUT_MODES)


@pytest.mark.parametrize("mode", OUTPUT_MODES, ids=" ".join)
def test_output_modes_accepted_by_hip_6_4(
    scratch: Path, sid: Launcher, mode: tuple[str, ...]
) -> None:
    (scratch / "k.cu").write_text(KERNEL)
    out = [] if "-E" in mode else ["-o", "k.out"]
    result = sid.run(
        sid.hipcc, ["--offload-arch=gfx90a", *mode, "k.cu", *out], cwd=scratch, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
