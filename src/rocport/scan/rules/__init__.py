"""The rule registry: one line per rule, in code order (ruff's ``codes.rs`` style)."""

from __future__ import annotations

from rocport.scan.registry import Rule
from rocport.scan.rules.cuda import (
    architecture_specific,
    block_size_not_multiple_of_64,
    dynamic_parallelism,
    hand_written_gemm_fft,
    inline_ptx,
    lane_math_32,
    launch_bounds_over_1024,
    managed_memory_in_loop,
    nanosleep,
    scalar_elementwise_kernel,
    shared_array_per_warp,
    shuffle_loop_from_16,
    static_shared_over_64k,
    texture_reference,
    tile_size_32,
    warp_mask_32_bit,
    warp_mask_truncated,
    warp_size_constant_32,
)
from rocport.scan.rules.python import (
    bf16_needs_cuda_version,
    cuda_extension_build,
    cuda_only_package,
    cudnn_backend_setting,
    nvidia_smi_call,
    nvidia_tool_call,
    raw_nvcc_call,
    tf_hides_gpus,
    torch_cuda_amp_deprecated,
    triton_nvidia_intrinsics,
)

RULES: tuple[Rule, ...] = (
    warp_mask_32_bit.check.rule,  # RP101
    warp_mask_truncated.check.rule,  # RP102
    lane_math_32.check.rule,  # RP103
    warp_size_constant_32.check.rule,  # RP104
    shuffle_loop_from_16.check.rule,  # RP105
    tile_size_32.check.rule,  # RP106
    shared_array_per_warp.check.rule,  # RP107
    inline_ptx.check.rule,  # RP110
    nanosleep.check.rule,  # RP111
    architecture_specific.check.rule,  # RP112
    dynamic_parallelism.check.rule,  # RP113
    texture_reference.check.rule,  # RP114
    managed_memory_in_loop.check.rule,  # RP115
    launch_bounds_over_1024.check.rule,  # RP116
    static_shared_over_64k.check.rule,  # RP117
    block_size_not_multiple_of_64.check.rule,  # RP118
    scalar_elementwise_kernel.check.rule,  # RP120
    hand_written_gemm_fft.check.rule,  # RP121
    cuda_only_package.check.rule,  # RP301
    torch_cuda_amp_deprecated.check.rule,  # RP302
    cudnn_backend_setting.check.rule,  # RP303
    tf_hides_gpus.check.rule,  # RP304
    cuda_extension_build.check.rule,  # RP305
    raw_nvcc_call.check.rule,  # RP306
    nvidia_smi_call.check.rule,  # RP307
    triton_nvidia_intrinsics.check.rule,  # RP308
    nvidia_tool_call.check.rule,  # RP309
    bf16_needs_cuda_version.check.rule,  # RP310
)

BY_ID: dict[str, Rule] = {r.id: r for r in RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def resolve(selector: str) -> list[Rule]:
    """Rules named by an id (``RP101``), a prefix (``RP1``, ``RP10``) or a name."""
    key = selector.strip()
    if key in BY_NAME:
        return [BY_NAME[key]]
    matched = [r for r in RULES if r.id.startswith(key.upper())] if key else []
    if not matched:
        raise KeyError(key)
    return matched
