"""The data-type arguments of hipBLAS's Ex functions before hipBLAS 2.0 (ROCm < 6.0).

cuBLAS's Ex functions take ``cudaDataType`` (``CUDA_R_32F``) and ``cublasComputeType_t``;
hipBLAS 2.0 (ROCm 6.0) added ``_v2`` forms that take ``hipDataType`` (``HIP_R_32F``) and
``hipblasComputeType_t``, as cuBLAS does. Before it, ``hipblasGemmEx`` and the other Ex
functions take ``hipblasDatatype_t`` (``HIPBLAS_R_32F``) for both, a distinct C++ enum, so a
``HIP_R_32F`` argument does not compile there. The entries whose ``older`` form has the
``hipblas_datatype`` transform get those arguments rewritten: the argument positions come from
the CUDA 13 declaration (``data/cuda_signatures.json``), the value names from hipBLAS 5.x's
``hipblasDatatype_t`` (``hipblas/hipblas.h``: ``HIPBLAS_R_16F`` ... ``HIPBLAS_C_16B``).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

#: the CUDA parameter types that hipBLAS < 2.0 takes as ``hipblasDatatype_t``: True where the
#: mapping renames the type to another (``cudaDataType`` -> ``hipDataType``), so that a variable
#: of it does not convert; ``cublasComputeType_t`` becomes ``hipblasDatatype_t`` there
_DATATYPE_PARAMS = {"cudaDataType": True, "cudaDataType_t": True, "cublasComputeType_t": False}
#: ``HIP_R_32F`` -> ``HIPBLAS_R_32F``; bfloat16 is spelled ``16BF`` in hipDataType, ``16B`` in
#: hipblasDatatype_t; FP8/FP4 and 4-bit types have no hipblasDatatype_t value
_HIP_VALUE = re.compile(r"HIP(?:BLAS)?_([RC])_(16F|32F|64F|8I|8U|32I|32U|16BF?)\Z")
NOTE = "hipBLAS before 2.0 (ROCm 6.0) takes hipblasDatatype_t here"


@cache
def datatype_positions(cuda_function: str) -> dict[int, bool]:
    """The argument indices of ``cuda_function`` whose CUDA type is a data or compute type,
    each with whether an argument other than a data-type value there must be reported."""
    path = resources.files("rocport.port") / "data" / "cuda_signatures.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    row = doc["functions"].get(cuda_function) or {}
    # the C declaration (``params``); cuBLAS's C++ overloads that take the compute type as a
    # cudaDataType are the legacy form of the same parameter
    params = row.get("params") or []
    return {i: _DATATYPE_PARAMS[t] for i, t in enumerate(params) if t in _DATATYPE_PARAMS}


def hipblas_value(hip: str) -> str | None:
    """The ``hipblasDatatype_t`` value for the ``hipDataType`` (or hipBLAS) value ``hip``."""
    match = _HIP_VALUE.match(hip)
    if match is None:
        return None
    kind, width = match.groups()
    return f"HIPBLAS_{kind}_{width.removesuffix('F') if width == '16BF' else width}"
