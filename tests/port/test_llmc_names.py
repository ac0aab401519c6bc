"""Names llm.c's train_gpt2.cu needed (its bfloat16 path and cuBLASLt setup): each maps to what
HIP declares, and the ported code compiles for gfx942 with HIP 6.4."""

from __future__ import annotations

import pytest

from rocport.port import support
from rocport.port.mapping import load_mapping
from rocport.port.model import Outcome, PortOptions
from rocport.port.translator import translate

SOURCE = """#include <cuda_bf16.h>
#include <cublasLt.h>
__device__ nv_bfloat16 round_bf16(float v) { return __float2bfloat16_rn(v); }
void set_bias_type(cublasLtMatmulDesc_t desc) {
  cublasDataType_t bias_type = CUDA_R_16BF;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type,
                                 sizeof(bias_type));
}
"""


def _port(text: str):
    options = PortOptions(rocm="6.4")
    mapping = load_mapping(rocm="6.4")
    return support.translate(text, base=translate, path="a.cu", mapping=mapping, options=options)


def test_bfloat16_and_blaslt_datatype_names_map_to_hip_declarations() -> None:
    out = _port(SOURCE)
    assert "__device__ __hip_bfloat16 round_bf16(float v) { return __float2bfloat16(v); }" in (
        out.text
    )
    assert "hipDataType bias_type = HIP_R_16BF;" in out.text
    assert {r.outcome for r in out.references} == {Outcome.TRANSLATED}


@pytest.mark.hipcc
def test_the_port_compiles_for_gfx942(tmp_path) -> None:
    from rocport.check import check_tree, find_toolchain
    from rocport.errors import ToolError

    try:
        toolchain = find_toolchain(rocm="6.4")
    except ToolError as exc:
        pytest.fail(f"no HIP 6.4 toolchain: {exc} (bash scripts/toolchain-rocm.sh 6.4)")
    (tmp_path / "a.hip").write_text(_port(SOURCE).text)
    result = check_tree(tmp_path, toolchain=toolchain, offload_arch=("gfx942",), units=["a.hip"])
    (unit,) = result.units
    assert unit.status.value == "passed", [e.message for e in unit.errors]
