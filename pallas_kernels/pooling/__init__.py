"""ReduceWindow and SelectAndScatter (pooling and its gradient) as Pallas kernels."""

from pallas_kernels.pooling.api import reduce_window
from pallas_kernels.pooling.sas_api import select_and_scatter_add

__all__ = ["reduce_window", "select_and_scatter_add"]
