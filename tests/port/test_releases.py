"""Per-release facts: the known releases, what ``--rocm`` accepts, and what a port for each
release emits and reports, checked against ``data/releases/facts.json``."""

from __future__ import annotations

import json
import os
import re
from functools import cache
from importlib import resources
from pathlib import Path

import pytest

from rocport.errors import InputError
from rocport.port.api import port_tree
from rocport.port.config import load_config
from rocport.port.mapping import load_mapping
from rocport.port.model import PortOptions
from rocport.port.releases import (
    known_releases,
    name_state,
    parameters_changed,
    release,
    resolve_release,
    warp_size_form,
)
from rocport.port.report import to_dict

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "cuda"
CORPUS = Path(os.environ.get("ROCPORT_CORPUS", REPO.parent / "shared" / "corpus"))
CORPUS_PROJECTS = ("rodinia/cuda", "sgemm-cuda", "gpu-burn", "llm.c", "llama.cpp-ggml")
#: at least these, and the newest 7.x
TARGETS = ("5.7", "6.2", "6.4", "7.2")
_NEEDS = re.compile(r"^(\S+) needs ROCm (\d+\.\d+) or newer$")
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")


@cache
def facts() -> dict:
    path = resources.files("rocport.port") / "data" / "releases" / "facts.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _key(version: str) -> tuple[int, int]:
    return tuple(int(p) for p in version.split(".")[:2])


# -- the data --------------------------------------------------------------------------------
def test_releases_cover_5_7_to_the_newest_with_sources() -> None:
    known = known_releases()
    assert {"5.2", "5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"} <= set(known)
    assert known == tuple(sorted(known, key=_key))
    doc = facts()
    for version in known:
        info = release(version)
        assert info.facts in ("headers", "tables", "bounds")
        if info.facts == "headers":
            assert "hip" in info.header_sets and info.sources
            assert all(s.startswith(("Debian ", "ROCm/HIP ")) for s in info.sources)
        if info.facts == "tables":
            assert _key(version) <= _key(doc["tables_newest"])
    # the releases whose HIP headers were read
    assert {v for v in known if release(v).facts == "headers"} >= {"5.2", "5.7", "6.4", "7.2"}


def test_every_row_has_a_source_and_a_consistent_order() -> None:
    doc = facts()
    count = len(doc["sources"])
    for section in ("names", "headers"):
        for name, row in doc[section].items():
            assert re.fullmatch(r"\d+\.\d+", row["added"]), name
            for fact in ("added", "deprecated", "removed"):
                if fact in row:
                    assert 0 <= row[f"{fact}_src"] < count, (name, fact)
            if "removed" in row:
                assert _key(row["added"]) < _key(row["removed"]), name
            if row.get("absent"):
                assert _key(row["absent"]) < _key(row["added"]), name
    for item in doc["disagreements"]:
        assert {"name", "fact", "tables", "headers", "table"} <= set(item)


def test_sources_name_package_versions_and_commits() -> None:
    sources = facts()["sources"]
    assert any(re.match(r"Debian trixie libamdhip64-dev 5\.7\.", s) for s in sources)
    assert any(re.match(r"Debian experimental libamdhip64-dev 7\.2\.", s) for s in sources)
    assert any(re.search(r"ROCm/HIP rocm-6\.1\.\d \([0-9a-f]{40}\)", s) for s in sources)
    assert any(re.search(r"ROCm/HIPIFY docs/tables at [0-9a-f]{40} \S+\.md", s) for s in sources)


# -- --rocm ----------------------------------------------------------------------------------
def test_point_releases_map_to_their_line_with_a_note() -> None:
    assert resolve_release("6.4") == ("6.4", None)
    line, note = resolve_release("6.4.3")
    assert line == "6.4" and "6.4.3" in note and "6.4 line" in note
    assert load_mapping(rocm="6.4.3").rocm == "6.4"


@pytest.mark.parametrize("bad", ["9.9", "6.9", "4.0", "six", "6", "7.2.x"])
def test_unknown_releases_are_refused_listing_the_known(bad: str) -> None:
    with pytest.raises(InputError) as info:
        resolve_release(bad)
    assert "5.7" in str(info.value) and "7.2" in str(info.value)
    with pytest.raises(InputError):
        load_mapping(rocm=bad)


def test_rocport_toml_rocm_is_checked(tmp_path: Path) -> None:
    (tmp_path / "rocport.toml").write_text('rocm = "6.9"\n')
    with pytest.raises(InputError, match="unknown ROCm release '6.9'"):
        load_config(tmp_path / "rocport.toml")
    (tmp_path / "rocport.toml").write_text('rocm = "6.2.1"\n')
    assert load_config(tmp_path / "rocport.toml").rocm == "6.2.1"


def test_cli_refuses_an_unknown_release(tmp_path: Path, capsys) -> None:
    from rocport.cli.main import main

    try:
        main(["port", str(EXAMPLES), "-o", str(tmp_path / "out"), "--rocm", "6.9"])
        code = 0
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "unknown ROCm release '6.9'" in err and "5.7" in err
    assert not (tmp_path / "out").exists()


# -- the three false statements of the first --rocm 5.2 try ----------------------------------
def test_hipfft_backward_is_not_reported_missing_in_5_2() -> None:
    entry = load_mapping(rocm="5.2").lookup("CUFFT_INVERSE")
    assert (entry.hip, entry.status) == ("HIPFFT_BACKWARD", "supported")
    assert name_state("HIPFFT_BACKWARD", (5, 2)).kind == "available"


def test_thrust_is_not_reported_missing_in_5_2() -> None:
    mapping = load_mapping(rocm="5.2")
    for header in ("thrust/device_vector.h", "thrust/sort.h", "thrust/reduce.h"):
        entry = mapping.include(header)
        assert entry is not None and entry.supported, header
        assert not entry.note or "needs ROCm" not in entry.note


def test_hip_drv_get_error_name_needs_5_4_exactly() -> None:
    for rocm in ("5.2",):
        entry = load_mapping(rocm=rocm).lookup("cuGetErrorName")
        assert entry.status == "unsupported"
        assert entry.note == "hipDrvGetErrorName needs ROCm 5.4 or newer"
    assert load_mapping(rocm="5.7").lookup("cuGetErrorName").hip == "hipDrvGetErrorName"


def test_the_5_2_report_of_the_examples_makes_none_of_the_three_claims(tmp_path: Path) -> None:
    report = to_dict(port_tree(EXAMPLES, tmp_path / "out", options=PortOptions(rocm="5.2")))
    notes = {r["note"] for f in report["files"] for r in f["issues"] if r["note"]}
    assert not any("HIPFFT_BACKWARD" in n or "thrust" in n for n in notes), notes
    assert "hipDrvGetErrorName needs ROCm 5.4 or newer" in notes
    assert not any("6.4 or newer" in n for n in notes), notes


# -- ROCm 7 semantics ------------------------------------------------------------------------
def test_warp_size_is_a_compile_time_constant_only_before_7() -> None:
    assert warp_size_form("6.4") == "constexpr"
    assert warp_size_form("6.3") == "constexpr"  # between two releases read as constexpr
    assert warp_size_form("7.2") == "object"
    assert warp_size_form("7.0") is None  # not read, and the releases around it differ


def test_hipblas_v2_interface_per_release() -> None:
    # before hipBLAS 2 (ROCm 6.0): no compute-type enum, Ex functions take hipblasDatatype_t
    # for data and compute types (their data-type arguments are rewritten)
    old = load_mapping(rocm="5.7")
    assert old.lookup("CUBLAS_COMPUTE_32F").hip == "HIPBLAS_R_32F"
    assert old.lookup("cublasComputeType_t").hip == "hipblasDatatype_t"
    assert old.lookup("CUBLAS_COMPUTE_32F_FAST_TF32").note == (
        "HIPBLAS_COMPUTE_32F_FAST_TF32 needs ROCm 6.0 or newer"
    )
    gemm = old.lookup("cublasGemmEx")
    assert (gemm.hip, gemm.transform) == ("hipblasGemmEx", "hipblas_datatype")
    # 6.x: the _v2 functions take hipDataType and hipblasComputeType_t
    six = load_mapping(rocm="6.4")
    assert six.lookup("cublasGemmEx").hip == "hipblasGemmEx_v2"
    assert six.lookup("cublasComputeType_t").hip == "hipblasComputeType_t"
    # 7.x removed the _v2 names; the plain names take the same parameters
    seven = load_mapping(rocm="7.2")
    gemm = seven.lookup("cublasGemmEx")
    assert gemm.hip == "hipblasGemmEx" and "hipblasGemmEx_v2" in gemm.note
    assert name_state("hipblasGemmEx_v2", (7, 2)).kind == "removed"
    assert name_state("hipblasDatatype_t", (7, 2)).kind == "removed"
    assert seven.lookup("CUDA_R_32F").hip == "HIP_R_32F"


# -- ports for each release, checked against the facts ---------------------------------------
def _trees() -> list[tuple[str, Path]]:
    trees = [("examples", EXAMPLES)]
    for project in CORPUS_PROJECTS:
        trees.append((project, CORPUS / project))
    return trees


@pytest.fixture(scope="module")
def ports(tmp_path_factory) -> dict[tuple[str, str], tuple[Path, Path, dict]]:
    missing = [str(path) for _, path in _trees() if not path.is_dir()]
    if missing:
        pytest.fail(f"corpus folders missing: {', '.join(missing)} (set ROCPORT_CORPUS)")
    out = {}
    base = tmp_path_factory.mktemp("release-ports")
    for rocm in TARGETS:
        for name, src in _trees():
            dest = base / rocm / name.replace("/", "-")
            report = to_dict(port_tree(src, dest, options=PortOptions(rocm=rocm)))
            out[(rocm, name)] = (src, dest, report)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("rocm", TARGETS)
def test_needs_rocm_lines_match_the_facts(ports, rocm: str) -> None:
    seen = 0
    for (target, _name), (_src, _dest, report) in ports.items():
        if target != rocm:
            continue
        assert report["release"]["line"] == rocm
        assert report["release"]["facts"] == release(rocm).facts
        for file in report["files"]:
            for ref in file["issues"]:
                match = _NEEDS.match(ref["note"] or "")
                if not match:
                    continue
                seen += 1
                hip, version = match.groups()
                row = facts()["names"].get(hip) or facts()["headers"].get(hip)
                assert row is not None, hip
                assert row["added"] == version and "absent" not in row, (hip, row)
                assert _key(version) > _key(rocm), (hip, version, rocm)
    if rocm == "5.7":
        assert seen, "the 5.7 ports name no release (cuBLAS compute types need 6.0)"


@pytest.mark.slow
@pytest.mark.parametrize("rocm", TARGETS)
def test_no_name_missing_from_the_release_is_emitted(ports, rocm: str) -> None:
    """Identifiers the port wrote that its input lacks are never absent from or removed by the
    target release (according to the facts)."""
    target = _key(rocm)
    names = facts()["names"]
    bad = []
    for (release_, _name), (src, dest, _report) in ports.items():
        if release_ != rocm:
            continue
        for path in dest.rglob("*"):
            if not path.is_file() or path.suffix not in (".cu", ".cuh", ".h", ".hpp", ".cpp"):
                continue
            original = src / path.relative_to(dest)
            if not original.is_file():  # a support header rocport adds: its own code, whose
                assert path.name.startswith("rocport_"), path  # locals (x, y, z) are no HIP names;
                continue  # the ports that include it are compiled per release
            before = set(_IDENT.findall(original.read_text(errors="replace")))
            for ident in set(_IDENT.findall(path.read_text(errors="replace"))) - before:
                if ident in names and name_state(ident, target).kind in ("absent", "removed"):
                    bad.append(f"{path.relative_to(dest)}: {ident}")
    assert not bad, f"--rocm {rocm} emitted names the release lacks: {sorted(bad)[:20]}"


def test_compile_time_wavefront_size_is_reported_from_7() -> None:
    """clang 22 (ROCm 7.2) dropped __AMDGCN_WAVEFRONT_SIZE (clang 21, ROCm 6.4, deprecated
    it): code that uses it, such as ggml's AMD branch, gets a report entry for 7.x."""
    probes = facts()["compiler_macros"]["__AMDGCN_WAVEFRONT_SIZE"]
    assert probes["7.2"]["state"] == "undefined" and probes["6.4"]["state"] == "deprecated"
    assert load_mapping(rocm="6.4").lookup("__AMDGCN_WAVEFRONT_SIZE") is None
    for rocm in ("7.0", "7.2"):
        entry = load_mapping(rocm=rocm).lookup("__AMDGCN_WAVEFRONT_SIZE")
        assert entry.status == "unsupported" and "compile-time wavefront size" in entry.note


@pytest.mark.slow
def test_ggml_7_2_port_reports_its_compile_time_wavefront_size(ports) -> None:
    for rocm, expected in (("6.4", False), ("7.2", True)):
        report = ports[(rocm, "llama.cpp-ggml")][2]
        found = {
            f["path"]
            for f in report["files"]
            for ref in f["issues"]
            if ref["name"] == "__AMDGCN_WAVEFRONT_SIZE"
        }
        assert bool(found) is expected, (rocm, found)
        if expected:
            assert "ggml/src/ggml-cuda/common.cuh" in found


#: warpSize where C++ needs a constant: an array bound, a template argument, static_assert,
#: a constexpr initializer, a case label
_CONSTANT_WARP = re.compile(
    r"\[[^\]\n;]*\bwarpSize\b[^\]\n;]*\]\s*[;=,)]"
    r"|<[^<>;\n()]*\bwarpSize\b[^<>;\n()]*>"
    r"|static_assert\s*\([^;]*\bwarpSize\b"
    r"|constexpr\b[^;]*=[^;]*\bwarpSize\b"
    r"|\bcase\b[^:;]*\bwarpSize\b"
)


@pytest.mark.slow
def test_7_2_ports_need_no_compile_time_warp_size(ports) -> None:
    """HIP 7 made warpSize a run-time value; CUDA's never was a constant, so a port never
    needs one: no output of a 7.2 port uses warpSize as a constant where its input did not."""
    assert warp_size_form("7.2") == "object"
    bad = []
    for (rocm, _name), (src, dest, _report) in ports.items():
        if rocm != "7.2":
            continue
        for path in dest.rglob("*"):
            if not path.is_file() or path.suffix not in (".cu", ".cuh", ".h", ".hpp", ".cpp"):
                continue
            after = {m.group(0) for m in _CONSTANT_WARP.finditer(path.read_text(errors="replace"))}
            source = src / path.relative_to(dest)
            before = set()
            if source.is_file():
                text = source.read_text(errors="replace")
                before = {m.group(0) for m in _CONSTANT_WARP.finditer(text)}
            bad += [f"{path.relative_to(dest)}: {use}" for use in sorted(after - before)]
    assert not bad, bad


# -- compiled with the toolchains of this machine --------------------------------------------
#: target release -> the toolchain releases nearest to it that may be installed here
NEAREST = {"5.7": ("5.2", "6.4"), "6.2": ("6.4",), "6.4": ("6.4",), "7.2": ("7.2", "6.4")}


def _toolchains() -> dict:
    from rocport.check import find_toolchain
    from rocport.errors import ToolError

    found, missing = {}, []
    for version in sorted({v for vs in NEAREST.values() for v in vs}):
        try:
            found[version] = find_toolchain(rocm=version)
        except ToolError as exc:
            missing.append(f"{version}: {exc}")
    return found, missing


#: the trees compiled per release (the other corpus projects are ported and checked above;
#: rodinia's 23 programs and ggml take too long to compile four times on a small machine)
COMPILED = ("examples", "sgemm-cuda", "gpu-burn")


@pytest.mark.hipcc
@pytest.mark.slow
@pytest.mark.parametrize("tree", COMPILED)
@pytest.mark.parametrize("rocm", TARGETS)
def test_ports_compile_with_the_nearest_toolchains(ports, rocm: str, tree: str) -> None:
    from rocport.check import Status, check_tree

    toolchains, missing = _toolchains()
    usable = [v for v in NEAREST[rocm] if v in toolchains]
    if not usable:
        pytest.skip(f"no toolchain near ROCm {rocm}: {'; '.join(missing)}")
    if missing:
        print(f"toolchains not available: {'; '.join(missing)}")
    src, dest, report = ports[(rocm, tree)]
    converted = {f["path"] for f in report["files"] if f["converted"]}
    for version in usable:
        result = check_tree(dest, toolchain=toolchains[version], offload_arch=("gfx90a",))
        failed = []
        for unit in result.units:
            print(f"--rocm {rocm} with HIP {version}: {unit.path}: {unit.status.value}")
            if unit.status is Status.FAILED and unit.path in converted:
                failed.append(unit)
        for unit in failed:
            assert version != rocm, f"--rocm {rocm} port of {unit.path} fails with HIP {version}"
            why = _explained(unit, version, rocm)
            first = unit.errors[0].message if unit.errors else "no diagnostic"
            assert why, (
                f"--rocm {rocm} port of {unit.path} reported converted, fails with HIP "
                f"{version} for a reason the facts do not give: {first}"
            )
            print(f"  expected with HIP {version}: {why}")


def _explained(unit, version: str, rocm: str) -> str | None:
    """A name in the errors of ``unit`` that the toolchain's release lacks, or whose
    parameters differ between the target and the toolchain's release (according to the
    facts): the port is right for its target, the headers are another release's."""
    toolchain, target = _key(version), _key(rocm)
    for error in unit.errors:
        for ident in re.findall(r"'([A-Za-z_]\w*)'", error.message):
            state = name_state(ident, toolchain)
            if state.kind in ("absent", "removed"):
                return f"{ident}: {state.message}"
            why = parameters_changed(ident, min(toolchain, target), max(toolchain, target))
            if why:
                return why
    return None


def test_loading_the_facts_is_cheap() -> None:
    import time

    from rocport.port import releases

    releases._facts.cache_clear()
    started = time.process_time()
    releases._facts()
    assert time.process_time() - started < 0.5


def test_the_docs_table_is_generated_from_the_facts() -> None:
    import subprocess
    import sys

    script = REPO / "scripts" / "gen_release_facts.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--docs", "--check"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_the_facts_file_is_what_the_generator_writes() -> None:
    """Re-run the generator on its inputs (``.cache/debs`` and ``$ROCPORT_MIRRORS`` holding
    ``ROCm+HIP/repo``, ``ROCm+clr/repo`` and ``ROCm+HIPIFY/repo``) and compare."""
    import subprocess
    import sys

    debs = REPO / ".cache" / "debs"
    mirrors = Path(os.environ.get("ROCPORT_MIRRORS", REPO / ".cache" / "mirrors"))
    needed = [debs, mirrors / "ROCm+HIP" / "repo", mirrors / "ROCm+clr" / "repo"]
    needed.append(mirrors / "ROCm+HIPIFY" / "repo")
    compilers = {"5.2": Path("/usr/bin/hipcc"), "6.4": REPO / ".toolchains" / "sid"}
    compilers["7.2"] = REPO / ".toolchains" / "exp72"
    needed += [p if p.name == "hipcc" else p / ".rocport-ready" for p in compilers.values()]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        pytest.skip(f"generator inputs missing: {', '.join(missing)} (see docs/mapping-data.md)")
    probes = [f"--compiler={v}={'/' if p.name == 'hipcc' else p}" for v, p in compilers.items()]
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "gen_release_facts.py"),
            "--debs",
            str(debs),
            "--git",
            str(mirrors),
            "--hipify",
            str(mirrors / "ROCm+HIPIFY" / "repo"),
            *probes,
            "--check",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("code", "constant"),
    [
        ("__shared__ float s[warpSize];", True),
        ("float s[2 * warpSize] = {0};", True),
        ("unsigned int buf[4][warpSize];", True),
        ('static_assert(warpSize == 64, "");', True),
        ("static constexpr int k = warpSize / 2;", True),
        ("switch (x) { case warpSize: break; }", True),
        ("Lanes<warpSize>::n;", True),
        ("f<warpSize>(x);", True),
        ("__global__ void __launch_bounds__(4 * warpSize) k() {}", True),
        ("#define W warpSize\n__shared__ float s[W];", True),
        ("x = s[warpSize];", False),
        ("return smem[lane + j * warpSize];", False),
        ("smem[lane_id + warp_id * warpSize] = d;", False),
        ("int k = warpSize / 2;", False),
        ("if (a < warpSize && b > c) f();", False),
        ("for (int i = 0; i < warpSize; i++) {}", False),
        ("// int s[warpSize];", False),
        ("/* int s[warpSize]; */", False),
        ('printf("s[warpSize];");', False),
        ("int lane = threadIdx.x % warpSize;", False),
    ],
)
def test_constant_contexts_of_warp_size(code: str, constant: bool) -> None:
    from rocport.port.warp_size import constant_uses

    assert bool(constant_uses(code)) is constant


def test_constant_warp_size_scan_is_linear() -> None:
    import time

    from rocport.port.warp_size import constant_uses

    def best(text: str) -> float:
        times = []
        for _ in range(3):
            started = time.perf_counter()
            constant_uses(text)
            times.append(time.perf_counter() - started)
        return min(times)

    for unit in ("a[warpSize ", "f<warpSize ", "int a[warpSize];\n"):
        small, large = best(unit * 2000), best(unit * 8000)
        assert large < 8 * small, (unit, small, large)
