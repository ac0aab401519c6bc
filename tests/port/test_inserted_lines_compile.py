"""Lines the translator inserts change no meaning, as the real preprocessor sees it (hipcc -E).

A file whose first comment is continued by a backslash: an include inserted on the next
physical line would be swallowed by the comment, and the line the author had commented out
(``#define DEBUG_SYNC 1``) would become code. The original and the port must agree. A
``__has_include`` test must find the header the port includes.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rocport.check.toolchain import Launcher
from rocport.port.mapping import load_mapping
from rocport.port.model import PortOptions
from rocport.port.translator import translate

HEADS = {
    "backslash": "// Set DEBUG_SYNC below to sync after each launch \\\n#define DEBUG_SYNC 1\n",
    "backslash-space": "// Set DEBUG_SYNC below \\  \n#define DEBUG_SYNC 1\n",
    "bom": "\ufeffint first_line_after_a_byte_order_mark;\n",
}
BODY = (
    "#ifdef DEBUG_SYNC\n"
    "int rocport_marker_debug_sync_on;\n"
    "#endif\n"
    "__global__ void k(float* v) { v[0] = 1; }\n"
    "void run(float* v) { k<<<1, 1>>>(v); cudaDeviceSynchronize(); }\n"
)


def _hipcc() -> Launcher:
    path = shutil.which("hipcc")
    if path is None:
        pytest.skip("hipcc (HIP 5.2) not found: run `bash scripts/toolchain-rocm.sh 5.2`")
    return Launcher(path)


def _preprocess(hipcc: Launcher, source: Path, *args: str) -> str:
    done = hipcc.run(hipcc.hipcc, ["-E", *args, source.name], cwd=source.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("head", list(HEADS))
def test_port_preprocesses_like_the_original(tmp_path: Path, head: str) -> None:
    hipcc = _hipcc()
    text = HEADS[head] + BODY
    ported = translate(
        text, path="k.cu", mapping=load_mapping(rocm="5.2"), options=PortOptions(rocm="5.2")
    ).text
    assert "#include <hip/hip_runtime.h>" in ported
    original = tmp_path / "original.cpp"
    original.write_text(text.replace("k<<<1, 1>>>(v);", ""))  # plain C++: no launch syntax
    port = tmp_path / "port.hip"
    port.write_text(ported)
    before = _preprocess(hipcc, original, "-x", "c++", "-D__global__=")
    after = _preprocess(hipcc, port, "-x", "hip", "--cuda-host-only")
    marker = "rocport_marker_debug_sync_on"
    assert (marker in after) == (marker in before)
    assert marker not in before  # the author's #define is commented out
    assert "hipGetDeviceCount" in after  # the HIP header was read: the include is a line


ROOT = Path(__file__).resolve().parents[2]


def test_port_of_a_file_with_a_byte_order_mark_compiles(tmp_path: Path) -> None:
    """clang 21 (HIP 6.4) stops at a U+FEFF anywhere but the very start of the file."""
    sid = ROOT / ".toolchains" / "sid"
    if not (sid / ".rocport-ready").exists():
        pytest.skip(f"no HIP 6.4 root at {sid} (run scripts/toolchain-rocm.sh 6.4)")
    text = "\ufeffint first_line;\n__global__ void k(float* v) { v[0] = 1; }\n"
    ported = translate(
        text, path="k.cu", mapping=load_mapping(rocm="6.4"), options=PortOptions()
    ).text
    assert ported.startswith("\ufeff#include <hip/hip_runtime.h>\n")
    source = tmp_path / "bom.hip"
    source.write_text(ported)
    done = subprocess.run(
        [
            str(ROOT / "scripts" / "sid-hipcc"),
            "-fsyntax-only",
            "-x",
            "hip",
            "--cuda-host-only",
            source.name,
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_has_include_branch_survives_the_port(tmp_path: Path) -> None:
    """A header included only where ``__has_include`` finds it is still included after the
    port: HIP's preprocessor must be asked for the HIP header, not for the CUDA one."""
    hipcc = _hipcc()
    text = (
        "#if __has_include(<cuda_fp16.h>)\n#include <cuda_fp16.h>\n"
        "int rocport_marker_fp16_branch;\n#endif\n"
        "__global__ void k(__half* v) { v[0] = __float2half(1.0f); }\n"
    )
    ported = translate(
        text, path="k.cu", mapping=load_mapping(rocm="5.2"), options=PortOptions(rocm="5.2")
    ).text
    port = tmp_path / "port.hip"
    port.write_text(ported)
    after = _preprocess(hipcc, port, "-x", "hip", "--cuda-host-only")
    assert "rocport_marker_fp16_branch" in after
