"""DotGeneral as a Pallas kernel: planning, TPU and GPU variants, public op."""

from pallas_kernels.dot.api import dot_general
from pallas_kernels.dot.plan import DotPlan, plan_dot_general

__all__ = ["DotPlan", "dot_general", "plan_dot_general"]
