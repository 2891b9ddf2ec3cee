"""Scatter as a deterministic Pallas kernel: planning, TPU and GPU variants, public op."""

from pallas_kernels.scatter_kernel.api import scatter
from pallas_kernels.scatter_kernel.plan import ScatterPlan, canonical_combiner, plan_scatter

__all__ = ["ScatterPlan", "canonical_combiner", "plan_scatter", "scatter"]
