"""Files that are not all UTF-8 are translated, and their other bytes come out as they went in."""

from __future__ import annotations

from pathlib import Path

from rocport.port.api import port_tree
from rocport.port.mapping import load_mapping
from rocport.port.model import FileStatus

#: one Windows-1252 byte (0xe9, "é") in a string literal and one in a comment
CP1252 = (
    b"// r\xe9sum\xe9\n#include <cuda_runtime.h>\n#include <stdio.h>\n"
    b'int main() { float* d; cudaMalloc(&d, 4); printf("caf\xe9\\n"); cudaFree(d); }\n'
)


def test_a_windows_1252_byte_does_not_stop_the_translation(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "main.cu").write_bytes(CP1252)
    report = port_tree(src, tmp_path / "out", mapping=load_mapping(rocm="6.4"))
    (file,) = [f for f in report.files if f.path == "main.cu"]
    assert file.status is FileStatus.TRANSLATED
    assert "0xe9" in file.message and "kept exactly as read" in file.message
    out = (tmp_path / "out" / "main.cu").read_bytes()
    assert b"hipMalloc(&d, 4)" in out and b"cudaMalloc" not in out
    assert out == (
        CP1252.replace(b"cuda_runtime.h", b"hip/hip_runtime.h")
        .replace(b"cudaMalloc", b"hipMalloc")
        .replace(b"cudaFree", b"hipFree")
    )
