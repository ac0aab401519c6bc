"""The tree driver on real file trees: mirroring, copying, in-place edits, idempotence, errors."""

from __future__ import annotations

import os
import stat
from functools import cache
from pathlib import Path

import pytest

from rocport.errors import InputError, OutputError
from rocport.port import tree
from rocport.port.api import default_output, port_tree
from rocport.port.mapping import load_mapping
from rocport.port.model import FileStatus, PortOptions

KERNEL = """\
#include "vec.cuh"
#include <cuda_runtime.h>
// cudaMalloc in a comment stays
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
void run(float* h, int n) {
  float* d;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(d, n);
  cudaFree(d);
}
"""
HEADER = "#pragma once\nvoid run(float* h, int n);\n"
HIP_FILE = (
    "#include <hip/hip_runtime.h>\n__global__ void k() {}\nvoid f() { hipDeviceSynchronize(); }\n"
)
LATIN1 = "// caf\xe9\nint x;\n".encode("latin-1")
BINARY = b"\x7fELF\x00\x01cudaMalloc\x00"


@cache
def pinned_mapping():
    """The shipped mapping, with the names these tests rely on pinned as a rocport.toml would."""
    return load_mapping(rocm="6.4", extra={"cudaGraphExecNodeSetParams": None})


def make_tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "vec.cu").write_text(KERNEL)
    (root / "src" / "vec.cuh").write_text(HEADER)
    (root / "src" / "already.hip.cpp").write_text(HIP_FILE)
    (root / "src" / "legacy.c").write_bytes(LATIN1)
    (root / "src" / "blob.h").write_bytes(BINARY)
    (root / "data.bin").write_bytes(bytes(range(256)))
    script = root / "run.sh"
    script.write_text("#!/bin/sh\necho cudaMalloc\n")
    script.chmod(0o755)
    (root / "README.md").write_text("uses cudaMalloc\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def port(src: Path, out: Path | None = None, **kw):
    return port_tree(src, out, mapping=pinned_mapping(), **kw)


def by_path(report):
    return {f.path: f for f in report.files}


def mtimes(root: Path) -> dict[str, int]:
    return {
        p.relative_to(root).as_posix(): p.lstat().st_mtime_ns
        for p in root.rglob("*")
        if not p.is_dir()
    }


def test_mirror_translates_sources_and_copies_the_rest(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    out = tmp_path / "out"
    report = port(src, out)
    files = by_path(report)

    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == sorted([*files, tree.OUTPUT_MARKER])
    assert ".git/HEAD" not in files and not (out / ".git").exists()
    text = (out / "src" / "vec.cu").read_text()
    assert '#include "vec.cuh"' in text  # file names are kept, so includes still resolve
    assert "#include <hip/hip_runtime.h>" in text and "hipMemcpyHostToDevice" in text
    assert "// cudaMalloc in a comment stays" in text
    assert files["src/vec.cu"].status is FileStatus.TRANSLATED
    assert files["src/vec.cu"].counts["found"] >= 5
    assert files["src/vec.cu"].converted

    assert files["src/vec.cuh"].status is FileStatus.UNCHANGED
    assert files["src/already.hip.cpp"].status is FileStatus.ALREADY_HIP
    assert (out / "src" / "already.hip.cpp").read_text() == HIP_FILE
    assert files["src/legacy.c"].status is FileStatus.UNCHANGED  # read although not UTF-8
    assert (out / "src" / "legacy.c").read_bytes() == LATIN1
    assert files["src/blob.h"].status is FileStatus.BINARY
    assert (out / "src" / "blob.h").read_bytes() == BINARY
    assert files["README.md"].status is FileStatus.COPIED
    assert (out / "README.md").read_text() == "uses cudaMalloc\n"  # not a source file
    assert (out / "data.bin").read_bytes() == bytes(range(256))
    assert stat.S_IMODE((out / "run.sh").stat().st_mode) == 0o755
    assert all(f.written and f.output for f in report.files)
    assert report.mode == "mirror"


def test_second_run_writes_nothing(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    out = tmp_path / "out"
    port(src, out)
    before = mtimes(out)
    again = port(src, out)
    assert not any(f.written for f in again.files)
    assert mtimes(out) == before
    assert all(f.on_disk for f in again.files)


def test_translating_the_output_again_changes_nothing(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    out = port(src, tmp_path / "out").output
    again = port(Path(out), tmp_path / "out2")
    for f in again.files:
        assert (tmp_path / "out2" / f.path).read_bytes() == (Path(out) / f.path).read_bytes(), (
            f.path
        )


def test_examine_writes_nothing(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    before = mtimes(src)
    report = port(src, examine=True)
    assert report.mode == "examine" and report.output is None
    assert not default_output(src).exists()
    assert mtimes(src) == before
    vec = by_path(report)["src/vec.cu"]
    assert vec.counts["found"] >= 5
    assert not vec.converted and not vec.on_disk  # nothing written, so nothing converted


def test_in_place_keeps_backups(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    report = port(src, in_place=True)
    assert report.mode == "in-place"
    assert (src / "src" / "vec.cu.orig").read_text() == KERNEL
    assert "hipMalloc" in (src / "src" / "vec.cu").read_text()
    assert not (src / "src" / "vec.cuh.orig").exists()  # unchanged files get no backup
    assert (src / "src" / "legacy.c").read_bytes() == LATIN1
    assert by_path(report)["src/vec.cu"].written

    before = mtimes(src)
    again = port(src, in_place=True)
    assert not any(f.written for f in again.files)
    assert mtimes(src) == before


def test_in_place_without_backup(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    port(src, in_place=True, backup=False)
    assert "hipMalloc" in (src / "src" / "vec.cu").read_text()
    assert not list(src.rglob("*.orig"))


def test_in_place_never_overwrites_a_different_backup(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    (src / "src" / "vec.cu.orig").write_text("an older backup\n")
    report = port(src, in_place=True)
    assert (src / "src" / "vec.cu.orig").read_text() == "an older backup\n"
    assert (src / "src" / "vec.cu.orig.1").read_text() == KERNEL  # numbered, and said so
    assert by_path(report)["src/vec.cu"].backup == str(src / "src" / "vec.cu.orig.1")


def test_single_file_default_and_explicit_output(tmp_path: Path) -> None:
    kernel = tmp_path / "vec.cu"
    kernel.write_text(KERNEL)
    report = port(kernel)
    assert report.output == str(tmp_path / "vec-hip.cu")
    assert "hipFree" in (tmp_path / "vec-hip.cu").read_text()
    folder = tmp_path / "out"
    folder.mkdir()
    port(kernel, folder)
    assert "hipFree" in (folder / "vec.cu").read_text()
    port(kernel, tmp_path / "renamed.hip")
    assert "hipFree" in (tmp_path / "renamed.hip").read_text()


def test_symlinks_are_recreated_not_followed(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    (src / "alias.cu").symlink_to("src/vec.cu")
    (src / "abs.cu").symlink_to(src / "src" / "vec.cu")
    (src / "srclink").symlink_to("src", target_is_directory=True)
    out = tmp_path / "out"
    files = by_path(port(src, out))
    assert files["alias.cu"].status is FileStatus.SYMLINK
    assert os.readlink(out / "alias.cu") == "src/vec.cu"
    assert os.readlink(out / "abs.cu") == str(out / "src" / "vec.cu")  # redirected into OUT
    assert os.readlink(out / "srclink") == "src"
    assert "srclink/vec.cu" not in files
    assert "hipMalloc" in (out / "alias.cu").read_text()


def test_skip_file_and_crlf(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    skipped = "// rocport: skip-file\nvoid f() { cudaFree(0); }\n"
    (src / "skip.cu").write_text(skipped)
    (src / "dos.cu").write_bytes(b"void f() {\r\n  cudaFree(0);\r\n}\r\n")
    out = tmp_path / "out"
    files = by_path(port(src, out))
    assert files["skip.cu"].status is FileStatus.EXCLUDED
    assert (out / "skip.cu").read_text() == skipped
    assert (out / "dos.cu").read_bytes().endswith(b"void f() {\r\n  hipFree(0);\r\n}\r\n")


def test_unsupported_and_unknown_are_reported_with_positions(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "g.cu").write_text(
        "void f() {\n  cudaGraphExecNodeSetParams(0);\n  cudaNotAThing();\n}\n"
    )
    report = port(src, tmp_path / "out")
    g = by_path(report)["g.cu"]
    assert g.status is FileStatus.TRANSLATED and not g.converted
    issues = {(r.name, r.outcome.value, r.line, r.column) for r in g.issues}
    assert ("cudaGraphExecNodeSetParams", "unsupported", 2, 3) in issues
    assert ("cudaNotAThing", "unknown", 3, 3) in issues
    assert report.counts["unsupported"] == 1 and report.counts["unknown"] == 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_parallel_and_serial_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    monkeypatch.setattr(tree, "PARALLEL_MIN_FILES", 2)
    monkeypatch.setattr(tree, "PARALLEL_MIN_BYTES", 0)
    src = tmp_path / "proj"
    for i in range(24):
        (src / f"d{i % 3}").mkdir(parents=True, exist_ok=True)
        (src / f"d{i % 3}" / f"k{i}.cu").write_text(KERNEL.replace("scale", f"scale{i}"))
    seen = []
    report = port(
        src, tmp_path / f"out{jobs}", jobs=jobs, progress=lambda d, t: seen.append((d, t))
    )
    assert [f.path for f in report.files] == sorted(f.path for f in report.files)
    assert all(f.status is FileStatus.TRANSLATED for f in report.files)
    assert seen[-1] == (24, 24)
    assert report.counts["translated"] == report.counts["found"] > 24 * 5
    for f in report.files:
        assert "hipMemcpy(" in (tmp_path / f"out{jobs}" / f.path).read_text()


def test_project_names_reach_the_translator(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "a.cu").write_text("void g() { initCuda(); cudaFree(0); }\n")
    options = PortOptions(extra_names=(("initCuda", "initHip"),))
    port(src, tmp_path / "out", options=options)
    assert "void g() { initHip(); hipFree(0); }\n" in (tmp_path / "out" / "a.cu").read_text()


@pytest.mark.parametrize("relative_out", ["proj", "proj/sub/out", "."])
def test_output_overlapping_the_input_is_refused(tmp_path: Path, relative_out: str) -> None:
    src = make_tree(tmp_path / "proj")
    with pytest.raises(InputError, match="overlaps the input"):
        port(src, tmp_path / relative_out)
    assert not (src / "sub").exists()


def test_bad_inputs(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    with pytest.raises(InputError, match="no such file"):
        port(tmp_path / "missing")
    with pytest.raises(InputError, match="cannot be used together"):
        port(src, tmp_path / "out", in_place=True)
    with pytest.raises(InputError, match="--no-backup"):
        port(src, tmp_path / "out", backup=False)
    kernel = src / "src" / "vec.cu"
    with pytest.raises(InputError, match="is the input"):
        port(kernel, kernel)


def test_unwritable_output(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    with pytest.raises(OutputError):
        port(src, blocker / "out")
    with pytest.raises(OutputError, match="not a folder"):
        port(src, blocker)
    assert blocker.read_text() == "a file, not a folder"
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_single_file_in_place(tmp_path: Path) -> None:
    kernel = tmp_path / "vec.cu"
    kernel.write_text(KERNEL)
    report = port(kernel, in_place=True)
    assert report.output == str(kernel)
    assert "hipMalloc" in kernel.read_text()
    assert (tmp_path / "vec.cu.orig").read_text() == KERNEL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vec.cu", "vec.cu.orig"]


def test_build_files_are_migrated_and_a_broken_one_is_copied(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "vec.cu").write_text(KERNEL)
    (src / "vec.cuh").write_text(HEADER)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(vec LANGUAGES CXX CUDA)\n"
        "add_executable(vec vec.cu)\n"
    )
    (src / "Makefile").write_text("vec: vec.cu\n\tnvcc -O2 -o $@ $<\n")
    broken = "project(broken\n"
    (src / "odd.cmake").write_text(broken)
    out = tmp_path / "out"
    files = by_path(port(src, out))
    assert files["CMakeLists.txt"].kind == "build"
    assert files["CMakeLists.txt"].status is FileStatus.TRANSLATED
    assert "HIP" in (out / "CMakeLists.txt").read_text()
    assert "hipcc" in (out / "Makefile").read_text()
    assert files["odd.cmake"].status is FileStatus.COPIED
    assert files["odd.cmake"].message.startswith("not migrated:")
    assert (out / "odd.cmake").read_text() == broken


def test_macros_the_tree_defines_are_not_unknown_cuda(tmp_path: Path) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "check.cuh").write_text(
        "#pragma once\n#define CUDA_CHECK(x) do { if ((x) != cudaSuccess) abort(); } while (0)\n"
    )
    (src / "a.cu").write_text('#include "check.cuh"\nvoid f() { CUDA_CHECK(cudaFree(0)); }\n')
    report = port(src, tmp_path / "out")
    assert "CUDA_CHECK" in report.options.local_names
    assert report.counts["unknown"] == 0
    assert "CUDA_CHECK(hipFree(0))" in (tmp_path / "out" / "a.cu").read_text()


def test_build_files_link_what_the_ported_sources_call_and_cuda_linked_nothing_for(tmp_path):
    """NVTX 3 is header-only; its rocTX counterparts are in libroctx64: the Makefile's hipcc link
    command gets -lroctx64 only where a ported source calls rocTX (naming, which the support
    header implements inline, needs nothing)."""
    makefile = "app: a.cu\n\tnvcc $< -o $@\n"
    calls = {
        "range.cu": '#include <nvtx3/nvToolsExt.h>\nvoid f() { nvtxRangePushA("f"); }\n',
        "named.cu": "#include <nvtx3/nvToolsExtCudaRt.h>\n"
        'void f(cudaStream_t s) { nvtxNameCudaStreamA(s, "main"); }\n',
    }
    for name, source in calls.items():
        src = tmp_path / name / "src"
        src.mkdir(parents=True)
        (src / "a.cu").write_text(source)
        (src / "Makefile").write_text(makefile)
        report = port(src, tmp_path / name / "out", jobs=1)
        text = (tmp_path / name / "out" / "Makefile").read_text()
        linked = text.endswith("hipcc $< -o $@ -lroctx64\n")
        assert linked == (name == "range.cu"), text
        links = by_path(report)["Makefile"].families.get("link", {}).get("translated", 0)
        assert links == int(linked)
