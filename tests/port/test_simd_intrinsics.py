"""CUDA's SIMD intrinsics (__vadd4, __vsubss4, __vcmpeq2, __vsadu4, ...: CUDA Math API, "SIMD
Intrinsics", 82 functions), which HIP does not declare, over the support header
``rocport_simd_intrinsics.h``.

The header is checked against CUDA's own results: ``fixtures/simd_intrinsics_cuda.txt`` was
written by ``simd/simd_check.cu --fixture`` on an NVIDIA GPU (its header says which, with the
CUDA version and the date); that program also compared every function with CUDA's on the GPU
over 4.3 billion input pairs (docs/benchmarks.md, "CUDA SIMD intrinsics"). Here
``simd/simd_host_check.cpp`` builds the header for the host (its functions are ``__host__
__device__``) with each compiler there is: any C++ compiler as plain C++; hipcc of HIP 5.2, 6.4
and 7.2, which compiles the device side too; g++ over HIP-CPU's headers. Each run must
reproduce the fixture exactly. A missing compiler skips its case, saying so.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rocport.port import support
from rocport.port.api import port_tree
from rocport.port.mapping import load_mapping
from rocport.port.model import Outcome, PortOptions
from rocport.port.translator import translate

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SIMD = HERE / "simd"
FIXTURE = HERE / "fixtures" / "simd_intrinsics_cuda.txt"
HEADER = "rocport_simd_intrinsics.h"
CORPUS = ROOT.parent / "shared" / "corpus"
HIP_CPU = ROOT / ".cache" / "hip-cpu" / "hip-cpu-e112c93" / "include"
OPTIONS = PortOptions(rocm="6.4")
#: the checker's last line when the header reproduces the fixture
AGREES = "260 pairs x 82 functions: 0 differ"


def _cuda_names() -> list[str]:
    """The 82 functions, as simd/simd_functions.h lists them (from CUDA 13's headers)."""
    return re.findall(r"X\((__v\w+)\)", (SIMD / "simd_functions.h").read_text())


def _folder(tmp_path: Path) -> Path:
    """The header, the checker and its function list in one folder."""
    (tmp_path / HEADER).write_bytes(support.headers()[HEADER].data())
    for name in ("simd_functions.h", "simd_host_check.cpp"):
        shutil.copy(SIMD / name, tmp_path)
    shutil.copy(FIXTURE, tmp_path / "fixture.txt")
    return tmp_path


def _toolchain(rocm: str):
    from rocport.check import find_toolchain
    from rocport.errors import ToolError

    try:
        return find_toolchain(rocm=rocm)
    except ToolError as exc:
        pytest.skip(f"no HIP {rocm} toolchain: {exc} (bash scripts/toolchain-rocm.sh {rocm})")


def test_the_header_defines_each_cuda_simd_intrinsic_and_the_index_names_them() -> None:
    names = _cuda_names()
    assert len(names) == len(set(names)) == 82
    text = support.headers()[HEADER].data().decode()
    defined = re.findall(r"^ROCPORT_SIMD_(?:1|2|SAD)\((__v\w+),", text, flags=re.M)
    assert sorted(defined) == sorted(names)
    assert sorted(support.headers()[HEADER].names) == sorted(names)


def test_the_fixture_came_from_cuda_on_a_gpu() -> None:
    lines = FIXTURE.read_text().splitlines()
    where = next(line for line in lines if line.startswith("# where:"))
    assert "CUDA runtime 13" in where and "NVIDIA" in where, where
    (names,) = [line.split()[1:] for line in lines if line.startswith("names ")]
    assert names == _cuda_names()
    rows = [line.split() for line in lines if line and not line.startswith(("#", "names "))]
    assert len(rows) == 260 and {len(r) for r in rows} == {2 + 82}
    # CUDA's documented examples (crt/device_functions.h) are among them
    row = next(r for r in rows if r[:2] == ["1234aba5", "1234aba6"])
    result = dict(zip(names, (int(v, 16) for v in row[2:]), strict=True))
    assert result["__vcmpeq2"] == 0xFFFF0000 and result["__vcmplts2"] == 0x0000FFFF
    assert result["__vcmpeq4"] == 0xFFFFFF00 and result["__vcmplts4"] == 0x000000FF
    assert result["__vcmpges4"] == 0xFFFFFF00 and result["__vcmples2"] == 0xFFFFFFFF
    # the set forms give 1 in each lane that compares true, not 1 for the whole word
    assert result["__vseteq2"] == 0x00010000 and result["__vseteq4"] == 0x01010100


def _built(build: subprocess.CompletedProcess) -> None:
    assert build.returncode == 0, build.stdout + build.stderr


def _agrees(run: subprocess.CompletedProcess) -> None:
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().splitlines()[-1] == AGREES, run.stdout


def _build_and_check_here(folder: Path, build_command: list[str]) -> None:
    """Build the checker in ``folder`` with a compiler of this machine, run it on the fixture."""
    build = subprocess.run(build_command, cwd=folder, capture_output=True, text=True, check=False)
    _built(build)
    run = subprocess.run(
        [str(folder / "check"), "fixture.txt"], cwd=folder, capture_output=True, text=True
    )
    _agrees(run)


def test_the_header_as_plain_cxx_reproduces_cuda(tmp_path) -> None:
    """Any C++11 compiler: the header's arithmetic alone (no HIP)."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler (c++, g++ or clang++) on the PATH")
    folder = _folder(tmp_path)
    flags = ["-std=c++11", "-O2", "-Wall", "-Wextra", "-Werror", "-DROCPORT_SIMD_PLAIN_CXX"]
    _build_and_check_here(folder, [cxx, *flags, "simd_host_check.cpp", "-o", "check"])


@pytest.mark.hipcc
@pytest.mark.parametrize("rocm", ["5.2", "6.4", "7.2"])
def test_the_header_compiled_by_hipcc_reproduces_cuda_on_the_host(tmp_path, rocm) -> None:
    """hipcc compiles the device side too (a kernel calls all 82 functions; gfx942, or gfx90a
    for HIP 5.2's clang 15); the host side runs here (in the toolchain's root where it has one)."""
    launcher = _toolchain(rocm).launcher
    folder = _folder(tmp_path)
    arch = "gfx90a" if rocm == "5.2" else "gfx942"
    flags = ["-x", "hip", f"--offload-arch={arch}", "-std=c++17", "-O2", "-Wall", "-Werror"]
    build = launcher.run(launcher.hipcc, [*flags, "simd_host_check.cpp", "-o", "check"], cwd=folder)
    _built(build)
    run = launcher.run(str(folder / "check"), ["fixture.txt"], cwd=folder)
    print(f"HIP {rocm} ({arch}): {run.stdout.strip()}")
    _agrees(run)


def test_the_header_over_hip_cpu_reproduces_cuda(tmp_path) -> None:
    """g++ with HIP-CPU's hip/hip_runtime.h: the header as a port includes it, built for the CPU."""
    if not (HIP_CPU / "hip" / "hip_runtime.h").exists():
        pytest.skip(f"HIP-CPU is not under {HIP_CPU} (../shared/tools/get-hip-cpu .cache/hip-cpu)")
    if shutil.which("g++") is None:
        pytest.skip("g++ not found: HIP-CPU programs need it")
    if not any(Path(p).exists() for p in ("/usr/include/tbb/tbb.h", "/usr/include/oneapi/tbb.h")):
        pytest.skip("TBB headers not found: HIP-CPU needs them (apt-get install libtbb-dev)")
    folder = _folder(tmp_path)
    _build_and_check_here(
        folder,
        ["g++", "-std=c++17", "-O1", "-w", f"-I{HIP_CPU}", "simd_host_check.cpp", "-o", "check"]
        + ["-ltbb", "-pthread"],
    )


#: a project's own definitions, as ggml's vendors/hip.h writes them (its __vsubss4 and __vsub4
#: take and return int), returning markers so that the program can tell whose function ran
_PROJECT = """\
static __device__ __forceinline__ int __vsubss4(const int a, const int b) { return -1; }
static __device__ __forceinline__ int __vsub4(const int a, const int b) { return -2; }
static __device__ __forceinline__ unsigned int __vcmpeq4(unsigned int a, unsigned int b) {
  return 0xdead;
}
"""

_PRECEDENCE = """\
#include <cstdio>
#define ROCPORT_SIMD_STANDALONE
#define __host__
#define __device__
#define __forceinline__ inline
#define __vhaddu4(a, b) never_expanded(a, b)  // a project's function-like macro of that name
{first}
{second}
#undef __vhaddu4
int main() {{
  int i = 0x01020304;
  unsigned u = 0x7f7f7f7fu;
  unsigned char c = 3;
  std::printf("%d %d %d %d %d %x %x %x %x %x\\n", __vsubss4(i, i), __vsubss4(u, i),
              __vsubss4(u, u), __vsubss4(c, 1L), __vsub4(u, 5), __vcmpeq4(u, u),
              __vcmpeq4(i, 0), __vsubus4(u, i), __vaddss4(u, u), __vhaddu4(u, 1u));
  return 0;
}}
"""


@pytest.mark.parametrize("order", ["header first", "project first"])
def test_a_projects_own_definitions_take_precedence(tmp_path, order) -> None:
    """Every call that the project's function accepts runs the project's function, whatever the
    argument types (int, unsigned, char, long: never ambiguous), in either order of
    definition; the header's functions serve the rest."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler (c++, g++ or clang++) on the PATH")
    (tmp_path / HEADER).write_bytes(support.headers()[HEADER].data())
    include = f'#include "{HEADER}"'
    first, second = (include, _PROJECT) if order == "header first" else (_PROJECT, include)
    (tmp_path / "t.cpp").write_text(_PRECEDENCE.format(first=first, second=second))
    build = subprocess.run(
        [cxx, "-std=c++11", "-Wall", "-Wno-unused-parameter", "t.cpp", "-o", "t"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, check=True)
    # the project's -1 -1 -1 -1 -2 dead dead; the header's __vsubus4, __vaddss4, __vhaddu4
    assert run.stdout.split() == [
        "-1",
        "-1",
        "-1",
        "-1",
        "-2",
        "dead",
        "dead",
        "7e7d7c7b",
        "7f7f7f7f",
        "3f3f3f40",
    ]


def _ggml_definitions() -> str:
    """ggml's own __vsubss4, __vsub4, __vcmpeq4 and __vcmpne4 for HIP, read from the corpus
    (ggml/src/ggml-cuda/vendors/hip.h): from its int8x4_t typedef to the end of __vcmpne4."""
    path = CORPUS / "llama.cpp-ggml" / "ggml" / "src" / "ggml-cuda" / "vendors" / "hip.h"
    if not path.exists():
        pytest.skip(f"the real-world corpus is missing at {CORPUS}")
    text = path.read_text()
    start = text.index("typedef int8_t int8x4_t")
    end = text.index("\n}\n", text.index("__vcmpne4(unsigned int a")) + 3
    return text[start:end]


@pytest.mark.hipcc
@pytest.mark.parametrize("rocm", ["5.2", "6.4"])
def test_the_header_coexists_with_ggmls_own_definitions_in_device_code(tmp_path, rocm) -> None:
    """ggml's definitions verbatim and the header, both orders, compiled for the GPU: in device
    code ggml's functions are the ones called (their int return type shows it, also for
    mixed int/unsigned arguments), and the header's serve the names ggml does not define."""
    launcher = _toolchain(rocm).launcher
    ggml = _ggml_definitions()
    (tmp_path / HEADER).write_bytes(support.headers()[HEADER].data())
    checks = """\
__device__ void uses(int i, unsigned u, unsigned* out) {
  static_assert(std::is_same<decltype(__vsubss4(i, i)), int>::value, "ggml's");
  static_assert(std::is_same<decltype(__vsubss4(u, i)), int>::value, "ggml's");
  static_assert(std::is_same<decltype(__vsubss4(u, 0x08080808)), int>::value, "ggml's");
  static_assert(std::is_same<decltype(__vsub4(u, u)), int>::value, "ggml's");
  out[0] = __vcmpeq4(u, u) + __vcmpne4(i, 0) + __vsubss4(i, u) + __vsub4(i, 3);
  out[1] = __vsubus4(i, u) + __vsadu4(u, 1) + __vcmpgts2(i, u);  // the header's
}
__global__ void k(int i, unsigned u, unsigned* out) { uses(i, u, out); }
"""
    arch = "gfx90a" if rocm == "5.2" else "gfx942"
    prelude = "#include <hip/hip_runtime.h>\n#include <cstdint>\n#include <limits>\n"
    prelude += "#include <type_traits>\n"
    for order, body in (
        ("header first", f'#include "{HEADER}"\n{ggml}\n'),
        ("ggml first", f'{ggml}\n#include "{HEADER}"\n'),
    ):
        (tmp_path / "k.hip").write_text(prelude + body + checks)
        flags = ["-x", "hip", f"--offload-arch={arch}", "-std=c++17", "-Wall", "-Werror", "-c"]
        build = launcher.run(launcher.hipcc, [*flags, "k.hip", "-o", "k.o"], cwd=tmp_path)
        assert build.returncode == 0, (order, build.stdout + build.stderr)


def _translate(text: str):
    mapping = load_mapping(rocm="6.4")
    return support.translate(text, base=translate, path="a.cu", mapping=mapping, options=OPTIONS)


def test_simd_intrinsics_are_kept_translated_and_get_the_header() -> None:
    source = (
        "#include <cuda_runtime.h>\n"
        "__global__ void k(const int* x, unsigned* out) {\n"
        "  out[0] = __vsubss4(x[0], 0x08080808) + __vcmpne4(x[1], 0) + __vsadu2(x[2], x[3]);\n"
        "}\n"
    )
    out = _translate(source)
    assert out.text.count(f'#include "{HEADER}"') == 1
    assert "__vsubss4(x[0], 0x08080808) + __vcmpne4(x[1], 0) + __vsadu2(x[2], x[3])" in out.text
    simd = [r for r in out.references if r.name.startswith("__v")]
    assert [(r.name, r.outcome) for r in simd] == [
        ("__vsubss4", Outcome.TRANSLATED),
        ("__vcmpne4", Outcome.TRANSLATED),
        ("__vsadu2", Outcome.TRANSLATED),
    ]
    assert all(r.hip == r.name and "take precedence" in r.note for r in simd)
    assert _translate(out.text).text == out.text  # porting the port again changes nothing
    plain = _translate("__global__ void k(unsigned* o) { o[0] = __popc(o[1]); }\n")
    assert HEADER not in plain.text


def test_the_port_writes_the_header_beside_the_file_that_calls_them(tmp_path) -> None:
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    (src / "kernels" / "q.cu").write_text(
        "__global__ void k(int* x) { x[0] = __vsub4(x[1], x[2]); }\n"
    )
    port_tree(src, tmp_path / "out", options=OPTIONS, jobs=1)
    written = tmp_path / "out" / "kernels" / HEADER
    assert written.read_bytes() == support.headers()[HEADER].data()
    assert f'#include "{HEADER}"' in (tmp_path / "out" / "kernels" / "q.cu").read_text()
