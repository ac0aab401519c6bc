"""Which lines an AMD build compiles: the directive walk on small files, the macro data against
the real hipcc of each release, and real trees (ggml's CUDA backend, llm.c and its ROCm port)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocport.scan.blank import blank_non_code
from rocport.scan.engine import NOT_IN_BUILD, scan_paths
from rocport.scan.ppexpr import UNDEFINED
from rocport.scan.preprocessor import (
    Branches,
    _hip_macros,
    amd_setup,
    blank,
    dead_branches,
    parse_define,
)
from rocport.scan.rules import BY_ID, RULES

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
GGML = CORPUS / "llama.cpp-ggml" / "ggml"
GGML_CUDA = GGML / "src" / "ggml-cuda"


def _dead_lines(text: str, setup=None, path: str | None = None) -> set[int]:
    """1-based lines of ``text`` that no pass of the AMD build compiles."""
    setup = setup or amd_setup((6, 4))
    code = blank_non_code(text)
    lines: set[int] = set()
    for branch in dead_branches(path, text, code, setup):
        first = text.count("\n", 0, branch.start) + 2
        lines.update(range(first, text.count("\n", 0, branch.end) + 1))
    return lines


def _numbered(text: str) -> dict[str, int]:
    """``// @name`` markers -> their lines."""
    return {
        line.split("// @")[1].strip(): number
        for number, line in enumerate(text.splitlines(), 1)
        if "// @" in line
    }


def _check(text: str, setup=None, path: str | None = None) -> None:
    """Lines marked ``// @dead...`` are dead, ``// @live...`` are not."""
    dead = _dead_lines(text, setup, path)
    for name, line in _numbered(text).items():
        assert (line in dead) == name.startswith("dead"), (name, line, sorted(dead))


def test_nvidia_only_branches_are_dead_and_hip_ones_live() -> None:
    _check(
        """#ifdef __CUDA_ARCH__
asm("mov.u32 %0, %%laneid;");  // @dead1
#else
int lane = __lane_id();        // @live1
#endif
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
int a;                         // @live2
#elif __CUDA_ARCH__ >= 800
int b;                         // @dead2
#else
int c;                         // @dead3
#endif
#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= 700
int d;                         // @dead4
#endif
#if defined(USE_ROCM)
int e;                         // @live3
#endif
#ifdef NO_USE_HIP
int f;                         // @live4: not a switch that turns HIP on, so unknown
#else
int g;                         // @live5
#endif
"""
    )


def test_unknown_conditions_keep_both_branches() -> None:
    _check(
        """#ifdef GGML_CUDA_FORCE_MMQ
int a;                         // @live1
#else
int b;                         // @live2
#endif
#if SOME_OPTION > 2 && defined(__CUDA_ARCH__)
int c;                         // @dead1: decided by the known half
#elif SOME_OPTION
int d;                         // @live3
#else
int e;                         // @live4
#endif
#if __has_include(<rocwmma/rocwmma.hpp>)
int f;                         // @live5
#endif
"""
    )


def test_the_files_own_macros_count_in_order() -> None:
    _check(
        """#if X
int a;                         // @live0: X unknown here
#endif
#define X 0
#if X
int b;                         // @dead1
#endif
#undef X
#ifdef X
int c;                         // @dead2
#endif
#ifdef OPTION
#define Y 1
#endif
#if Y
int d;                         // @live1: Y was defined in a kept branch: unknown
#endif
#if !defined(GGML_USE_HIP)
#define NVIDIA_ONLY
#endif
#ifdef NVIDIA_ONLY
int e;                         // @dead3: defined only where the build does not go
#endif
"""
    )


def test_device_and_host_passes() -> None:
    _check(
        """#ifdef __HIP_DEVICE_COMPILE__
int device;                    // @live1
#else
int host;                      // @live2
#endif
#if defined(__HIP_DEVICE_COMPILE__) && !defined(__HIP_DEVICE_COMPILE__)
int never;                     // @dead1
#endif
"""
    )


@pytest.mark.parametrize(
    ("rocm", "dead_if", "dead_else"),
    [((6, 4), False, True), ((5, 2), False, True), ((7, 2), True, False), (None, False, False)],
)
def test_wavefront_size_and_hip_version_follow_the_release(rocm, dead_if, dead_else) -> None:
    text = """#if __AMDGCN_WAVEFRONT_SIZE == 64
#define WARP_SIZE 64
#else
#define WARP_SIZE 32
#endif
"""
    dead = _dead_lines(text, amd_setup(rocm))
    assert (2 in dead) is dead_if and (4 in dead) is dead_else
    version = "#if HIP_VERSION >= 60200000\nint a;\n#else\nint b;\n#endif\n"
    dead = _dead_lines(version, amd_setup(rocm))
    expected = set() if rocm is None else {4} if rocm >= (6, 2) else {2}
    assert dead == expected


def test_defines_from_the_command_line(tmp_path: Path) -> None:
    text = "#ifdef WAVEFRONTSIZE64\nint a;\n#else\nint b;\n#endif\n"
    assert _dead_lines(text) == set()
    assert _dead_lines(text, amd_setup((6, 4), [parse_define("WAVEFRONTSIZE64")])) == {4}
    tile = "#if TILE == 64\nint a;\n#endif\n"
    assert _dead_lines(tile, amd_setup(None, [parse_define("TILE=32")])) == {2}
    with pytest.raises(ValueError):
        parse_define("1BAD=3")


def test_headers_of_the_tree_are_followed_with_guards(tmp_path: Path) -> None:
    (tmp_path / "config.h").write_text(
        "#ifndef CONFIG_H\n#define CONFIG_H\n#if defined(__HIP_PLATFORM_AMD__)\n"
        "#define LANES 64\n#else\n#define LANES 32\n#endif\n#endif\n"
    )
    main = tmp_path / "k.cu"
    text = '#include "config.h"\n#include "config.h"\n#if LANES == 32\nint a;\n#endif\n'
    main.write_text(text)
    setup = amd_setup((6, 4), roots=[str(tmp_path)])
    assert _dead_lines(text, setup, str(main)) == {4}
    outside = amd_setup((6, 4), roots=[str(tmp_path / "elsewhere")])
    assert _dead_lines(text, outside, str(main)) == set()  # not followed: LANES unknown


def test_blanking_keeps_offsets_and_lines() -> None:
    text = "a\n#if 0\nint x = 1;\n#endif\nb\n"
    code = blank_non_code(text)
    dead = dead_branches(None, text, code, amd_setup())
    blanked = blank(code, dead)
    assert len(blanked) == len(code) and blanked.count("\n") == code.count("\n")
    assert "int x" not in blanked and blanked.splitlines()[0] == "a"


# -- the macro data against the compilers ----------------------------------------------------


def _probe_commands() -> list[tuple[str, list[str], dict[str, str]]]:
    found = []
    if Path("/usr/bin/hipcc").exists():
        found.append(("5.2", ["/usr/bin/hipcc"], {"HIP_PLATFORM": "amd"}))
    sid = REPO / "scripts" / "sid-hipcc"
    for version, root in (("6.4", "sid"), ("7.2", "exp72")):
        if (REPO / ".toolchains" / root / ".rocport-ready").exists():
            found.append(
                (version, [str(sid)], {"ROCPORT_SID_ROOT": str(REPO / ".toolchains" / root)})
            )
    return found


@pytest.mark.hipcc
@pytest.mark.slow
def test_macro_data_matches_each_hipcc(tmp_path: Path) -> None:
    probes = _probe_commands()
    if not probes:
        pytest.skip("no HIP compiler for AMD here (/usr/bin/hipcc, .toolchains/sid, exp72)")
    source = tmp_path / "probe.hip"
    source.write_text("#include <hip/hip_runtime.h>\n")
    rows = _hip_macros()["macros"]
    for version, command, env in probes:
        seen = {}
        for kind, flag in (("host", "--offload-host-only"), ("device", "--offload-device-only")):
            result = subprocess.run(
                [*command, "-x", "hip", flag, "--offload-arch=gfx90a", "-dM", "-E", source.name],
                capture_output=True,
                text=True,
                cwd=tmp_path,
                env={**os.environ, **env},
            )
            assert result.returncode == 0, result.stderr[-2000:]
            defined = {}
            for line in result.stdout.splitlines():
                parts = line.split(None, 2)
                if len(parts) >= 2 and parts[0] == "#define":
                    defined[parts[1]] = parts[2] if len(parts) == 3 else ""
            seen[kind] = defined
        for row in rows:
            for kind in ("host", "device"):
                expected = row[kind]
                actual = seen[kind].get(row["name"])
                assert (actual is None) == (expected is None), (version, kind, row["name"])
                if expected is not None and row["name"] != "__clang__":
                    assert actual.strip() == expected, (version, kind, row["name"], actual)
        major, minor = version.split(".")
        setup = amd_setup((int(major), int(minor)))
        for name in ("HIP_VERSION_MAJOR", "HIP_VERSION_MINOR", "__AMDGCN_WAVEFRONT_SIZE"):
            for kind, table in (("host", setup.host), ("device", {**setup.host, **setup.device})):
                actual = seen[kind].get(name)
                macro = table[name]
                body = getattr(macro, "body", None)
                assert actual == body, (version, kind, name, actual, macro)


# -- real trees ------------------------------------------------------------------------------

needs_corpus = pytest.mark.skipif(
    not GGML_CUDA.is_dir(), reason=f"the real-world corpus is missing ({CORPUS})"
)


def _by_rule(report, *rules: str):
    return [f for f in report.findings if f.rule in rules]


@needs_corpus
def test_ggml_ptx_and_wmma_under_nvidia_guards_disappear() -> None:
    rules = [BY_ID["RP110"], BY_ID["RP112"]]
    shown = scan_paths([GGML_CUDA], rules, branches=Branches(amd_setup((6, 4)), show_dead=True))
    live = scan_paths([GGML_CUDA], rules, branches=Branches(amd_setup((6, 4))))
    every = scan_paths([GGML_CUDA], rules, branches=None)
    assert len(shown.findings) == len(every.findings) >= 30
    assert live.findings == []  # every inline PTX and wmma use sits under an NVIDIA guard
    dead = [f.extra["dead_branch"]["directive"] for f in shown.findings]
    assert len(dead) == len(shown.findings)
    assert any("NEW_MMA_AVAILABLE" in d for d in dead)  # defined only for NVIDIA, in common.cuh
    assert any("__CUDA_ARCH__ == GGML_CUDA_CC_VOLTA" in d for d in dead)  # hip.h: 1300
    assert all("[dead branch:" in f.message for f in shown.findings)


@needs_corpus
def test_llm_c_amd_warp_size_in_the_else_of_its_64_lane_guard() -> None:
    header = CORPUS / "llm.c-amd" / "llmc" / "cuda_common.h"
    text = header.read_text()
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "#define WARP_SIZE 32U" in t)
    rules = [BY_ID["RP104"]]
    unknown = scan_paths([header], rules, branches=Branches(amd_setup((6, 4))))
    assert line in [f.location.line for f in unknown.findings]  # WAVEFRONTSIZE64 unknown
    built = Branches(amd_setup((6, 4), [parse_define("WAVEFRONTSIZE64")]))
    assert line not in [
        f.location.line for f in scan_paths([header], rules, branches=built).findings
    ]


def _ggml_hip_database(path: Path) -> set[Path]:
    """A compile_commands.json of ggml's HIP build: the sources that ggml-hip/CMakeLists.txt
    globs (default options) with its GGML_USE_HIP definition and include folders."""
    sources = sorted(GGML_CUDA.glob("*.cu"))
    for pattern in ("fattn-mma*.cu", "mmq*.cu", "fattn-vec*q4_0-q4_0.cu", "fattn-vec*q8_0-q8_0.cu"):
        sources += sorted((GGML_CUDA / "template-instances").glob(pattern))
    sources += sorted((GGML_CUDA / "template-instances").glob("fattn-vec*f16-f16.cu"))
    includes = [f"-I{GGML / 'include'}", f"-I{GGML / 'src'}", f"-I{GGML_CUDA}"]
    entries = [
        {
            "directory": str(path.parent),
            "file": str(source),
            "arguments": [
                "hipcc",
                "-x",
                "hip",
                "-DGGML_USE_HIP",
                "-DNDEBUG",
                *includes,
                "-c",
                str(source),
            ],
        }
        for source in sources
    ]
    path.write_text(json.dumps(entries))
    return set(sources)


@needs_corpus
def test_compile_commands_scan_only_the_amd_build(tmp_path: Path) -> None:
    database = tmp_path / "compile_commands.json"
    sources = _ggml_hip_database(database)
    from rocport.scan.amd_build import from_compile_commands

    setup, build = from_compile_commands(database, [GGML_CUDA], (6, 4))
    real = os.path.realpath  # the build names real paths (the corpus may be reached by a link)
    assert {real(s) for s in sources} <= build
    assert real(GGML_CUDA / "common.cuh") in build
    assert real(GGML_CUDA / "vendors" / "hip.h") in build
    report = scan_paths([GGML_CUDA], RULES, branches=Branches(setup), build=build)
    outside = {n.path for n in report.notes if n.message == NOT_IN_BUILD}
    assert outside and report.outside_build == len(outside)
    assert all("template-instances/fattn-vec" in p for p in outside)  # the quants left out
    assert not any(
        "fattn-vec" in f.location.path and "q4_1" in f.location.path for f in report.findings
    )
    assert "GGML_USE_HIP" in setup.host and not setup.files  # every unit agrees: no own macros


# -- the command line ------------------------------------------------------------------------


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "COLUMNS": "200"}
    return subprocess.run(
        ["python3", "-m", "rocport", "scan", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
    )


def test_cli_defines_toml_and_dead_branch_marks(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(
        "#ifdef NVIDIA_BUILD\n__global__ void k(unsigned *out) {\n"
        '    unsigned lane; asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane)); *out = lane;\n'
        "}\n#endif\n"
    )
    assert "RP110" in _run(str(tmp_path), "--format", "json").stdout  # unknown: kept
    quiet = _run(str(tmp_path), "--format", "json", "-U", "NVIDIA_BUILD")
    assert json.loads(quiet.stdout)["findings"] == [] and quiet.returncode == 0
    shown = _run(str(tmp_path), "--format", "json", "-U", "NVIDIA_BUILD", "--show-dead-branches")
    [finding] = json.loads(shown.stdout)["findings"]
    assert finding["extra"]["dead_branch"] == {"line": 1, "directive": "#ifdef NVIDIA_BUILD"}
    sarif = _run(str(tmp_path), "--format", "sarif", "-U", "NVIDIA_BUILD", "--show-dead-branches")
    assert (
        json.loads(sarif.stdout)["runs"][0]["results"][0]["suppressions"][0]["kind"] == "inSource"
    )
    (tmp_path / "rocport.toml").write_text('[scan]\nundefines = ["NVIDIA_BUILD"]\n')
    assert json.loads(_run(str(tmp_path), "--format", "json").stdout)["findings"] == []
    (tmp_path / "rocport.toml").write_text('[scan]\ndefines = ["1x"]\n')
    bad = _run(str(tmp_path))
    assert bad.returncode == 2 and "defines must be a list" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_cli_bad_options() -> None:
    for args, message in (
        (["-D", "9=1"], "bad macro name"),
        (["--rocm", "9.9"], "unknown ROCm release"),
        (["--show-dead-branches", "--fix"], "cannot go with --fix"),
        (["--compile-commands", "/nonexistent/cc.json"], "no such file"),
    ):
        result = _run(str(REPO / "examples" / "cuda"), *args)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


@needs_corpus
def test_cli_compile_commands_summary(tmp_path: Path) -> None:
    database = tmp_path / "compile_commands.json"
    _ggml_hip_database(database)
    result = _run(str(GGML_CUDA), "--compile-commands", str(database), "--rocm", "6.4")
    assert "not in the AMD build (compile_commands.json): not scanned as AMD code." in result.stdout
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr


# -- the walk against gcc's preprocessor -----------------------------------------------------

GCC = shutil.which("g++")
_NAMES = ("A", "B", "C")
_COND = st.one_of(
    st.sampled_from(["0", "1", "A", "B > 1", "C == 2", "defined(A)", "!defined B", "A && C"]),
    st.sampled_from(["A || B", "(B + C) % 3", "U", "defined(U)", "!U || A", "U && 0"]),
)


@st.composite
def _blocks(draw, depth: int = 0) -> list[str]:
    """Lines of directives (conditionals nested to depth 3, #define, #undef) and markers."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        choice = draw(st.integers(0, 5 if depth < 3 else 2))
        if choice == 0:
            lines.append("@")
        elif choice == 1:
            name = draw(st.sampled_from(_NAMES))
            lines.append(f"#define {name} {draw(st.integers(0, 3))}")
        elif choice == 2:
            lines.append(f"#undef {draw(st.sampled_from(_NAMES))}")
        else:
            opener = draw(st.sampled_from(["#if", "#ifdef", "#ifndef"]))
            head = draw(st.sampled_from(_NAMES + ("U",))) if opener != "#if" else draw(_COND)
            lines += [f"{opener} {head}", "@", *draw(_blocks(depth + 1))]
            for _ in range(draw(st.integers(0, 2))):
                lines += [f"#elif {draw(_COND)}", "@", *draw(_blocks(depth + 1))]
            if draw(st.booleans()):
                lines += ["#else", "@", *draw(_blocks(depth + 1))]
            lines.append("#endif")
    return lines


def _markers_kept_by_gcc(text: str, defines: list[str]) -> set[int]:
    result = subprocess.run(
        [GCC, "-x", "c++", "-E", "-P", "-w", *defines, "-"],
        input=text,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return {int(word[6:]) for word in result.stdout.split() if word.startswith("marker")}


@pytest.mark.skipif(GCC is None, reason="needs g++ as the reference preprocessor")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_blocks(), st.lists(st.sampled_from(["-DA=1", "-DB=2", "-DC", "-UA"]), max_size=3))
def test_dead_lines_are_lines_gcc_drops_for_every_definition_of_the_unknown(lines, options):
    numbered, count = [], 0
    for line in lines:
        if line == "@":
            count += 1
            line = f"marker{count}"
        numbered.append(line)
    text = "\n".join(numbered) + "\n"
    defines = [parse_define(o[2:]) if o[1] == "D" else (o[2:], UNDEFINED) for o in options]
    known = {name for name, _ in defines}
    defines += [(name, UNDEFINED) for name in _NAMES if name not in known]
    dead = _dead_lines(text, amd_setup(None, defines))
    marker_line = {
        int(line[6:]): n for n, line in enumerate(numbered, 1) if line.startswith("marker")
    }
    kept_sometimes: set[int] = set()
    kept_always = set(marker_line)
    for value in (None, "0", "1", "2"):
        extra = [] if value is None else [f"-DU={value}"]
        kept = _markers_kept_by_gcc(text, options + extra)
        kept_sometimes |= kept
        kept_always &= kept
    for marker, line in marker_line.items():
        if line in dead:
            assert marker not in kept_sometimes, (marker, text)
        elif "U" not in text:
            assert marker in kept_always, (marker, text)  # all known: decided like gcc
