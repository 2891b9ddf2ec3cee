"""Pallas kernels for XLA operations, for TPU (Mosaic), NVIDIA GPU (Triton)
and CPU (Pallas interpret mode), all from one jitted function.

Public ops
  ``dot_general(lhs, rhs, dimension_numbers, precision=None,
  preferred_element_type=None)`` — same contract as ``jax.lax.dot_general``.
  Calls the kernel does not cover fall back to XLA.

  ``conv_general_dilated(lhs, rhs, window_strides, padding, ...)`` — same
  contract as ``jax.lax.conv_general_dilated`` (1-D/2-D, implicit GEMM).

  ``explain(op, *args, **kwargs) -> KernelDecision`` — whether ``op`` with
  these arguments runs a kernel (``.uses_kernel``, ``.plan``) or why it falls
  back (``.reason``).  Arrays may be ``jax.ShapeDtypeStruct``.

Toolkit (``pallas_kernels.toolkit``), for the later kernels
  * ``dispatch_by_platform(*operands, tpu=..., gpu=...)`` — picks the variant
    at lowering time (``lax.platform_dependent``); on CPU runs a variant in
    interpret mode.  ``interpret_as("tpu"|"gpu")`` chooses which one (the TPU
    one under ``tpu_interpret_params()``, modelling TPU memory semantics).
  * ``tpu_compiler_params`` / ``triton_compiler_params`` — version-proof
    compiler parameters; Triton params force Triton lowering on GPU.
  * Tiling rules: ``tpu_tile(dtype)`` / ``tpu_sublanes`` ((8|16|32, 128)
    tiles), ``fit_block``, ``fit_power_of_two_block``, ``padded_size``,
    ``round_up``, ``cdiv``, ``TPU_VMEM_BUDGET_BYTES``,
    ``GPU_SHARED_MEMORY_BYTES``, ``GPU_MIN_DOT_DIM``.
  * ``pad_to_shape`` / ``crop_to_shape`` — pad to whole blocks, crop results.
  * ``KernelDecision`` and ``register_planner`` — the decision object and the
    hook that makes ``explain(op, ...)`` work for a new op; decisions are
    logged at debug level on the ``pallas_kernels`` logger.

Test helpers live in ``tests/pallas/kernel_testing.py``; the benchmark
harness in ``pallas_kernels.bench`` (``python -m pallas_kernels.bench dot``).
"""

from pallas_kernels import toolkit
from pallas_kernels.conv import conv_general_dilated
from pallas_kernels.dot import dot_general
from pallas_kernels.pooling import reduce_window, select_and_scatter_add
from pallas_kernels.scatter_kernel import scatter
from pallas_kernels.toolkit import KernelDecision, explain

__all__ = ["KernelDecision", "conv_general_dilated", "dot_general", "explain",
           "reduce_window", "scatter", "select_and_scatter_add", "toolkit"]
