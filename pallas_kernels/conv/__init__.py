"""ConvGeneralDilated as Pallas kernels: planning, TPU and GPU variants, public op."""

from pallas_kernels.conv.api import conv_general_dilated
from pallas_kernels.conv.plan import ConvPlan, plan_conv_general_dilated

__all__ = ["ConvPlan", "conv_general_dilated", "plan_conv_general_dilated"]
