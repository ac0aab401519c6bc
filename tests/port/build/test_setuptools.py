"""setup.py migration (rocport.port.build.setuptools)."""

from __future__ import annotations

import ast
import importlib.util
import textwrap
from pathlib import Path

import pytest

from rocport.check.toolchain import Launcher
from rocport.errors import InputError
from rocport.port.build.setuptools import migrate
from rocport.port.model import Outcome, PortOptions

SETUP = textwrap.dedent("""\
    from setuptools import setup
    from torch.utils.cpp_extension import BuildExtension, CUDAExtension

    NVCC_FLAGS = [
        "-O3",
        "-U__CUDA_NO_HALF_OPERATORS__",
        "-U__CUDA_NO_HALF_CONVERSIONS__",
        "--expt-relaxed-constexpr",
        "-gencode=arch=compute_80,code=sm_80",
        "--use_fast_math",
    ]

    setup(
        name="fused_ops",
        ext_modules=[
            CUDAExtension(
                "fused_ops",
                ["fused_ops.cpp", "fused_ops_kernel.cu"],
                extra_compile_args={"cxx": ["-O3"], "nvcc": NVCC_FLAGS},
                libraries=["cublas"],
            )
        ],
        cmdclass={"build_ext": BuildExtension},
    )
""")


def hip_side(text: str, name: str) -> list[str]:
    """Evaluate the ROCm branch of a ported list."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return eval(
                compile(ast.Expression(node.value), "<setup>", "eval"), {"IS_HIP_EXTENSION": True}
            )  # noqa: S307
    raise AssertionError(name)


def test_nvcc_list_gets_a_rocm_branch_and_the_switch_is_imported() -> None:
    out = migrate(SETUP, PortOptions())
    assert "from torch.utils.cpp_extension import IS_HIP_EXTENSION\n" in out.text
    assert hip_side(out.text, "NVCC_FLAGS") == [
        "-O3",
        "-U__HIP_NO_HALF_OPERATORS__",
        "-U__HIP_NO_HALF_CONVERSIONS__",
        "-fgpu-flush-denormals-to-zero",
        "-fno-hip-fp32-correctly-rounded-divide-sqrt",
        "-ffp-contract=fast",
        "-fapprox-func",
    ]
    # the CUDA branch is the original list, so the same setup.py still builds for CUDA
    assert '] if IS_HIP_EXTENSION else [\n    "-O3",' in out.text
    assert 'libraries=(["hipblas"] if IS_HIP_EXTENSION else ["cublas"])' in out.text
    ast.parse(out.text)


def test_references_name_the_extension_and_each_flag() -> None:
    out = migrate(SETUP, PortOptions())
    names = [(r.name, r.outcome) for r in out.references]
    assert ("CUDAExtension", Outcome.TRANSLATED) in names
    assert ("-gencode=arch=compute_80,code=sm_80", Outcome.TRANSLATED) in names
    arch = next(r for r in out.references if r.name.startswith("-gencode"))
    assert "PYTORCH_ROCM_ARCH" in (arch.note or "")


def test_inline_dict_and_unsupported_flag() -> None:
    text = (
        "from torch.utils.cpp_extension import CUDAExtension\n"
        'CUDAExtension("e", ["e.cu"], extra_compile_args={"nvcc": ["-lineinfo", "-Xptxas=-v"]})\n'
    )
    out = migrate(text, PortOptions())
    hip = "['-gline-tables-only', '-Rpass-analysis=kernel-resource-usage']"
    assert f"({hip} if IS_HIP_EXTENSION else" in out.text.replace('"', "'")
    assert [r.name for r in out.references if r.outcome is Outcome.UNSUPPORTED] == []


def test_flags_computed_at_run_time_are_reported() -> None:
    text = (
        "from torch.utils.cpp_extension import CUDAExtension\n"
        'CUDAExtension("e", ["e.cu"], extra_compile_args={"nvcc": get_flags()})\n'
    )
    out = migrate(text, PortOptions())
    assert out.text == text
    assert [(r.name, r.outcome) for r in out.references][-1] == ("get_flags()", Outcome.UNKNOWN)


def test_porting_twice_changes_nothing_more() -> None:
    once = migrate(SETUP, PortOptions())
    assert migrate(once.text, PortOptions()).text == once.text


def test_plain_setup_py_is_left_alone() -> None:
    text = "from setuptools import setup\nsetup(name='x')\n"
    out = migrate(text, PortOptions())
    assert out.text == text and out.references == []


def test_syntax_error_is_one_input_error() -> None:
    with pytest.raises(InputError, match=r"^not valid Python at line 1"):
        migrate("setup(\n", PortOptions())


def test_dict_call_and_named_dict() -> None:
    text = (
        "from torch.utils.cpp_extension import CUDAExtension, IS_HIP_EXTENSION\n"
        'ARGS = dict(cxx=["-O2"], nvcc=["-O2", "--expt-extended-lambda"])\n'
        'CUDAExtension("e", ["e.cu"], extra_compile_args=ARGS)\n'
    )
    out = migrate(text, PortOptions())
    assert 'nvcc=(["-O2"] if IS_HIP_EXTENSION else ["-O2", "--expt-extended-lambda"])' in out.text
    assert out.text.count("import") == 1  # the switch was imported already


HALF_KERNEL = (
    "#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n"
    "__global__ void add(__half* a, const __half* b) { a[threadIdx.x] = a[threadIdx.x] + b[0]; }\n"
)


def _torch_hipcc_flags() -> list[str]:
    """COMMON_HIP_FLAGS + COMMON_HIPCC_FLAGS as torch/utils/cpp_extension.py defines them."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip("torch not installed: pip install -e '.[torch]'")
    source = (Path(spec.origin).parent / "utils" / "cpp_extension.py").read_text()
    found: dict[str, list[str]] = {}
    for node in ast.parse(source).body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in ("COMMON_HIP_FLAGS", "COMMON_HIPCC_FLAGS")
        ):
            found[node.targets[0].id] = ast.literal_eval(node.value)
    return found["COMMON_HIP_FLAGS"] + found["COMMON_HIPCC_FLAGS"]


@pytest.mark.hipcc
def test_rocm_branch_compiles_half_operators_the_way_torch_calls_hipcc(
    scratch: Path, sid: Launcher
) -> None:
    """torch defines __HIP_NO_HALF_OPERATORS__ for hipcc; the ported -U flag must undo it, and
    every other flag of the ROCm branch must be one hipcc accepts."""
    torch_flags = _torch_hipcc_flags()
    ported = hip_side(migrate(SETUP, PortOptions()).text, "NVCC_FLAGS")
    flags = torch_flags + ported
    (scratch / "k.cu").write_text(HALF_KERNEL)
    args = [*flags, "--offload-arch=gfx90a", "-c", "k.cu", "-o", "k.o"]
    result = sid.run(sid.hipcc, args, cwd=scratch, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    # the CUDA spelling would not undo torch's define: the same kernel then fails to compile
    cuda_side = torch_flags + [f.replace("__HIP_NO", "__CUDA_NO") for f in ported]
    result = sid.run(
        sid.hipcc, [*cuda_side, "--offload-arch=gfx90a", "-fsyntax-only", "k.cu"], cwd=scratch
    )
    assert result.returncode != 0
    assert "invalid operands to binary expression ('__half'" in result.stderr
