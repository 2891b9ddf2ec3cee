"""Pieces shared by the Pallas kernels (dot_general now; conv, reduce_window,
scatter later).  See :mod:`pallas_kernels` for the overview."""

from pallas_kernels.toolkit.decisions import (
    KernelDecision,
    explain,
    logger,
    register_planner,
)
from pallas_kernels.toolkit.gradients import with_xla_gradient
from pallas_kernels.toolkit.padding import crop_to_shape, pad_to_shape
from pallas_kernels.toolkit.platforms import (
    dispatch_by_platform,
    interpret_as,
    interpreted_variant,
    tpu_compiler_params,
    tpu_interpret_params,
    triton_compiler_params,
)
from pallas_kernels.toolkit.tiling import (
    GPU_MIN_DOT_DIM,
    GPU_SHARED_MEMORY_BYTES,
    TPU_LANES,
    TPU_VMEM_BUDGET_BYTES,
    cdiv,
    fit_block,
    fit_power_of_two_block,
    next_power_of_two,
    padded_size,
    round_up,
    tpu_sublanes,
    tpu_tile,
)

__all__ = [
    "with_xla_gradient",
    "GPU_MIN_DOT_DIM",
    "GPU_SHARED_MEMORY_BYTES",
    "TPU_LANES",
    "TPU_VMEM_BUDGET_BYTES",
    "KernelDecision",
    "cdiv",
    "crop_to_shape",
    "dispatch_by_platform",
    "explain",
    "fit_block",
    "fit_power_of_two_block",
    "interpret_as",
    "interpreted_variant",
    "logger",
    "next_power_of_two",
    "pad_to_shape",
    "padded_size",
    "register_planner",
    "round_up",
    "tpu_compiler_params",
    "tpu_interpret_params",
    "tpu_sublanes",
    "tpu_tile",
    "triton_compiler_params",
]
