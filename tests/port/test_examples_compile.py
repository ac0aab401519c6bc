"""The project's CUDA samples (examples/cuda), translated for ROCm 5.2 and 6.4, compile with the
matching HIP compiler for gfx90a, and no CUDA identifier survives in their code except the ones
reported as unsupported.

Toolchains: ROCm 5.2 is Debian 12's ``hipcc``; ROCm 6.4 is the Debian sid root built by
``scripts/toolchain-rocm.sh`` and run through ``scripts/sid-hipcc``. A sample whose HIP library
is not installed for a release (no hipBLAS in Debian 12, say), or that uses CUDA APIs the
translation reports as unsupported for the release, is skipped for that release with the
reason; a missing compiler fails the test unless ROCPORT_ALLOW_MISSING_TOOLCHAIN=1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from rocport.lexer import Kind, tokenize
from rocport.port.mapping import load_mapping
from rocport.port.model import Outcome, PortOptions, Translation
from rocport.port.translator import defined_macros, translate

pytestmark = [pytest.mark.hipcc, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"
SOURCES = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".cu", ".cuh"))
UNITS = [p.name for p in SOURCES if p.suffix == ".cu"]
FLAGS = ["-std=c++17", "--offload-arch=gfx90a", "-x", "hip", "-c"]


@dataclass(frozen=True)
class Toolchain:
    rocm: str
    compiler: list[str]
    include_root: Path
    missing: str | None  # why it cannot run here, or None


def _toolchains() -> dict[str, Toolchain]:
    hipcc = shutil.which("hipcc")
    sid = ROOT / ".toolchains" / "sid"
    return {
        "5.2": Toolchain(
            "5.2",
            [hipcc or "hipcc"],
            Path("/usr/include"),
            None if hipcc else "hipcc not found on PATH (apt-get install hipcc)",
        ),
        "6.4": Toolchain(
            "6.4",
            [str(ROOT / "scripts" / "sid-hipcc")],
            sid / "usr" / "include",
            None
            if (sid / ".rocport-ready").exists()
            else f"no HIP 6.4 root at {sid} (run scripts/toolchain-rocm.sh 6.4)",
        ),
    }


TOOLCHAINS = _toolchains()


@dataclass
class Ported:
    translations: dict[str, Translation]
    cannot_build: dict[str, str]  # unit -> why it cannot build for the release
    results: dict[str, subprocess.CompletedProcess]


def _local_names() -> frozenset[str]:
    names: set[str] = set()
    for path in SOURCES:
        names |= defined_macros(path.read_text())
    return frozenset(names)


def _cannot_build(unit: str, translations: dict[str, Translation], chain: Toolchain) -> str | None:
    """Why ``unit`` (with the local headers it includes) cannot build for the release: a HIP
    library that is not installed there, or CUDA APIs the release lacks (reported unsupported)."""
    text = (EXAMPLES / unit).read_text()
    names = [unit, *(p.name for p in SOURCES if p.suffix == ".cuh" and f'"{p.name}"' in text)]
    unsupported = set()
    for name in names:
        for ref in translations[name].references:
            if ref.outcome is Outcome.UNSUPPORTED:
                unsupported.add(ref.name)
            elif ref.family == "include" and ref.hip and not _installed(chain, ref.hip):
                return f"{ref.hip} is not installed for ROCm {chain.rocm}"
    if unsupported:
        return f"reported unsupported for ROCm {chain.rocm}: {', '.join(sorted(unsupported))}"
    return None


def _installed(chain: Toolchain, header: str) -> bool:
    """Whether the library that owns ``header`` (its top folder) is installed for the release."""
    return (chain.include_root / header.split("/")[0]).exists()


def _port_and_compile(rocm: str, out: Path) -> Ported:
    chain = TOOLCHAINS[rocm]
    mapping = load_mapping(rocm=rocm)
    options = PortOptions(rocm=rocm, local_names=_local_names())
    translations = {}
    for path in SOURCES:
        translation = translate(path.read_text(), path=str(path), mapping=mapping, options=options)
        (out / path.name).write_text(translation.text)
        translations[path.name] = translation
    missing = {}
    for unit in UNITS:
        why = _cannot_build(unit, translations, chain)
        if why:
            missing[unit] = why
    results: dict[str, subprocess.CompletedProcess] = {}
    if chain.missing is None:

        def compile_one(unit: str) -> subprocess.CompletedProcess:
            cmd = [*chain.compiler, *FLAGS, unit, "-o", unit + ".o"]
            env = {**os.environ, "HIP_PLATFORM": "amd"}
            return subprocess.run(
                cmd, cwd=out, env=env, capture_output=True, text=True, timeout=600
            )

        todo = [u for u in UNITS if u not in missing]
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = dict(zip(todo, pool.map(compile_one, todo), strict=True))
    return Ported(translations, missing, results)


@pytest.fixture(scope="module")
def ported(tmp_path_factory) -> dict[str, Ported]:
    done = {}
    for rocm in TOOLCHAINS:
        out = tmp_path_factory.mktemp(f"rocm{rocm}")
        done[rocm] = _port_and_compile(rocm, out)
    return done


def _require(chain: Toolchain) -> None:
    if chain.missing is None:
        return
    if os.environ.get("ROCPORT_ALLOW_MISSING_TOOLCHAIN") == "1":
        pytest.skip(f"ROCm {chain.rocm} toolchain missing: {chain.missing}")
    pytest.fail(f"ROCm {chain.rocm} toolchain missing: {chain.missing}")


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("rocm", list(TOOLCHAINS))
def test_translated_sample_compiles(ported, rocm, unit):
    _require(TOOLCHAINS[rocm])
    result = ported[rocm]
    if unit in result.cannot_build:
        pytest.skip(result.cannot_build[unit])
    proc = result.results[unit]
    errors = [line for line in proc.stderr.splitlines() if "error" in line][:15]
    assert proc.returncode == 0, f"{unit} (ROCm {rocm}) does not compile:\n" + "\n".join(errors)


@pytest.mark.parametrize("name", [p.name for p in SOURCES])
@pytest.mark.parametrize("rocm", list(TOOLCHAINS))
def test_no_cuda_identifier_survives_unless_reported(ported, rocm, name):
    mapping = load_mapping(rocm=rocm)
    translation = ported[rocm].translations[name]
    reported = {r.name for r in translation.references if r.outcome is Outcome.UNSUPPORTED}
    unknown = [(r.name, r.line) for r in translation.references if r.outcome is Outcome.UNKNOWN]
    assert unknown == []
    local = _local_names()
    text = translation.text
    survivors = set()
    for token in tokenize(text):
        if token.kind is not Kind.IDENT:
            continue
        ident = text[token.start : token.end]
        entry = mapping.lookup(ident)
        cuda = entry is not None and entry.hip != ident or mapping.is_cuda_like(ident)
        if cuda and ident not in local and ident not in reported:
            survivors.add(ident)
    assert survivors == set()
