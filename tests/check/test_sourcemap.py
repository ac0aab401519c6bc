"""Line correspondence between a ported file and its CUDA original."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from rocport.check.sourcemap import ChangedName, FileMap, SourceMap, align
from rocport.port.model import Outcome, Reference, Translation

CUDA = """\
#include <cuda_runtime.h>
// copy a buffer
int main() {
    float* d;
    cudaMalloc(&d, 16);
    cudaMemcpy(d, d, 16, cudaMemcpyDeviceToDevice);
    cudaFree(d);
}
"""
HIP = """\
#include <hip/hip_runtime.h>
// copy a buffer
int main() {
    float* d;
    hipMalloc(&d, 16);
    hipMemcpy(d, d, 16, hipMemcpyDeviceToDevice);
    hipFree(d);
}
"""


@given(st.sets(st.integers(1, 60), max_size=12), st.integers(1, 40))
def test_inserted_lines_shift_the_lines_after_them(inserted: set[int], lines: int) -> None:
    # Build the output of a translation: input lines in order, with the inserted ones in between.
    total = lines + len(inserted)
    inserted = {i for i in inserted if i <= total}
    file_map = FileMap("a.cu", tuple(sorted(inserted)))
    expected, next_input = {}, 1
    for out in range(1, total + 1):
        if out in inserted:
            expected[out] = None
        else:
            expected[out] = next_input
            next_input += 1
    assert {out: file_map.cuda_line(out) for out in expected} == expected


def test_translations_give_lines_and_renamed_names() -> None:
    translation = Translation(
        "#include <hip/hip_runtime.h>\n" + HIP.split("\n", 1)[1],
        references=[
            Reference("cudaMalloc", 5, 5, Outcome.TRANSLATED, "runtime", "hipMalloc"),
            Reference("thrust", 5, 30, Outcome.TRANSLATED, "thrust", "thrust"),
            Reference("cudaFuncX", 7, 5, Outcome.UNKNOWN, "runtime", None, "not in the mapping"),
        ],
        inserted_lines=[1],
    )
    file_map = FileMap.from_translation("src/a.cu", translation)
    assert file_map.cuda_line(1) is None
    assert file_map.cuda_line(6) == 5
    # a name kept as written on purpose is no change; an unknown one is reported as such
    assert file_map.changed_on(5) == [ChangedName("cudaMalloc", "hipMalloc")]
    assert file_map.changed_on(7) == [
        ChangedName("cudaFuncX", None, "unknown", "not in the mapping")
    ]


def test_alignment_pairs_rewritten_lines_and_names() -> None:
    file_map = align("a.cu", CUDA, HIP)
    assert [file_map.cuda_line(n) for n in range(1, 9)] == list(range(1, 9))
    assert file_map.changed_on(1) == [ChangedName("<cuda_runtime.h>", "<hip/hip_runtime.h>")]
    assert file_map.changed_on(6) == [
        ChangedName("cudaMemcpy", "hipMemcpy"),
        ChangedName("cudaMemcpyDeviceToDevice", "hipMemcpyDeviceToDevice"),
    ]
    assert file_map.changed_on(2) == []  # comment lines: nothing renamed


def test_alignment_finds_inserted_lines() -> None:
    hip = "#include <hip/hip_runtime.h>\n" + CUDA.replace("cudaFree", "hipFree")
    file_map = align("a.cu", CUDA, hip)
    assert file_map.cuda_line(1) is None
    assert file_map.cuda_line(2) == 1
    assert file_map.cuda_line(8) == 7
    assert file_map.changed_on(7) == [ChangedName("cudaFree", "hipFree")]


def test_cuda_root_pairs_renamed_suffixes(tmp_path: Path) -> None:
    (tmp_path / "cuda").mkdir()
    (tmp_path / "hip").mkdir()
    (tmp_path / "cuda" / "k.cu").write_text(CUDA)
    (tmp_path / "hip" / "k.hip").write_text(HIP)
    source_map = SourceMap.from_cuda_root(tmp_path / "hip", tmp_path / "cuda", ["k.hip"])
    assert source_map.get("k.hip").cuda_path == str(tmp_path / "cuda" / "k.cu")


def test_port_report_adds_its_issues(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "src" / "k.cu").write_text(CUDA.replace("cudaFree(d)", "cudaFooBar(d)"))
    (tmp_path / "out" / "k.cu").write_text(HIP.replace("hipFree(d)", "cudaFooBar(d)"))
    report = {
        "schema": 1,
        "source": str(tmp_path / "src"),
        "output": str(tmp_path / "out"),
        "files": [
            {
                "path": "k.cu",
                "output": str(tmp_path / "out" / "k.cu"),
                "issues": [
                    {
                        "name": "cudaFooBar",
                        "line": 7,
                        "column": 5,
                        "outcome": "unknown",
                        "note": None,
                    },
                ],
            }
        ],
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    file_map = SourceMap.from_report(path, tmp_path / "out").get("k.cu")
    assert file_map.cuda_path == str(tmp_path / "src" / "k.cu")
    assert file_map.changed_on(7) == [ChangedName("cudaFooBar", None, "unknown")]
    assert file_map.changed_on(5) == [ChangedName("cudaMalloc", "hipMalloc")]


def test_real_port_report_with_relative_paths(tmp_path: Path, monkeypatch) -> None:
    """`rocport port --json` written in one folder, read from another."""
    import subprocess
    import sys

    (tmp_path / "proj" / "src").mkdir(parents=True)
    (tmp_path / "proj" / "src" / "k.cu").write_text(
        CUDA.replace("cudaFree(d);", "cudaFree(d);\n    cudaDeviceFlushGPUDirectRDMAWrites(x, y);")
    )
    subprocess.run(
        [sys.executable, "-m", "rocport", "port", "src", "-o", "src-hip", "--json", "port.json"],
        cwd=tmp_path / "proj",
        check=True,
        capture_output=True,
    )
    monkeypatch.chdir(tmp_path)
    file_map = SourceMap.from_report(
        tmp_path / "proj" / "port.json", tmp_path / "proj" / "src-hip"
    ).get("k.cu")
    assert (
        file_map is not None
        and Path(file_map.cuda_path).resolve() == tmp_path / "proj" / "src" / "k.cu"
    )
    assert ChangedName("cudaMalloc", "hipMalloc") in file_map.changed_on(5)
    assert [n.outcome for n in file_map.changed_on(8)] == ["unsupported"]
