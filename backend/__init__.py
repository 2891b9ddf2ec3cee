"""XLA's operation semantics, executable: the ``xla_client``-style builder surface and backends.

Code written against ``jax.lib.xla_client``'s builder ports by changing the import::

    from backend import XlaBuilder, ops, Shape, PrimitiveType, get_backend

(``import backend as xla_client`` keeps ``xla_client.ops.Add(...)``-style code as it is.)
"""

import sys

from backend import ops
from backend.api_types import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    CustomCallApiVersion,
    CustomCallSchedule,
    DotDimensionNumbers,
    FftType,
    GatherDimensionNumbers,
    OpMetadata,
    OpSharding,
    PaddingConfig,
    PaddingConfigDimension,
    Precision,
    PrecisionConfig,
    RandomAlgorithm,
    ReplicaGroup,
    ResultAccuracy,
    ResultAccuracyMode,
    ScatterDimensionNumbers,
    TriangularSolveOptions_Transpose,
    make_convolution_dimension_numbers,
    make_dot_dimension_numbers,
    make_padding_config,
    make_replica_groups,
)
from backend.backends import Backend, available_backends, get_backend, register_backend
from backend.builder import ProgramShape, XlaBuilder, XlaComputation, XlaOp
from backend.errors import ExecutionError, OpError, SpecError, UnsupportedError, XlaRuntimeError
from backend.etypes import PrimitiveType, dtype_to_etype, etype_to_dtype
from backend.host_io import execute_with_io, register_custom_call_target, unregister_custom_call_target
from backend.shape import Layout, Shape, shape_from_pyval
from backend.xla_client_helpers import (
    CurrentSourceInfoMetadata,
    PaddingType,
    PrecisionConfig_Precision,
    ResultAccuracy_Mode,
    window_padding_type_to_pad_values,
)

__all__ = [
    "Backend", "ComparisonDirection", "ComparisonType", "ConvolutionDimensionNumbers", "CurrentSourceInfoMetadata",
    "CustomCallApiVersion", "CustomCallSchedule", "DotDimensionNumbers", "ExecutionError", "FftType", "GatherDimensionNumbers",
    "Layout", "OpError", "OpMetadata", "OpSharding", "PaddingConfig", "PaddingConfigDimension", "PaddingType", "Precision",
    "PrecisionConfig", "PrecisionConfig_Precision", "PrimitiveType", "ProgramShape", "RandomAlgorithm",
    "ReplicaGroup", "ResultAccuracy", "ResultAccuracyMode", "ResultAccuracy_Mode", "ScatterDimensionNumbers",
    "Shape", "SpecError", "TriangularSolveOptions_Transpose", "UnsupportedError", "XlaBuilder", "XlaComputation",
    "XlaOp", "XlaRuntimeError", "available_backends", "dtype_to_etype", "etype_to_dtype", "get_backend",
    "make_convolution_dimension_numbers", "make_dot_dimension_numbers", "make_padding_config",
    "make_replica_groups", "ops", "register_backend", "shape_from_pyval", "window_padding_type_to_pad_values",
    "execute_with_io", "register_custom_call_target", "unregister_custom_call_target",
]

if "jax" in sys.modules:  # jax came first: give it its host devices before its backends start
    import backend.jax_backend  # noqa: F401 (configures jax's CPU device count on import)
