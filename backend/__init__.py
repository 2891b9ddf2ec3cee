"""XLA's operation semantics, executable: the ``xla_client``-style builder surface and backends.

Code written against ``jax.lib.xla_client``'s builder ports by changing the import::

    from backend import XlaBuilder, ops, Shape, PrimitiveType, get_backend
"""

from backend import ops
from backend.api_types import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    CustomCallApiVersion,
    CustomCallSchedule,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    PaddingConfig,
    PaddingConfigDimension,
    Precision,
    PrecisionConfig,
    RandomAlgorithm,
    ResultAccuracy,
    ResultAccuracyMode,
    ScatterDimensionNumbers,
    TriangularSolveOptions_Transpose,
    make_convolution_dimension_numbers,
    make_dot_dimension_numbers,
    make_padding_config,
)
from backend.backends import Backend, available_backends, get_backend, register_backend
from backend.builder import ProgramShape, XlaBuilder, XlaComputation, XlaOp
from backend.errors import ExecutionError, OpError, SpecError, UnsupportedError
from backend.etypes import PrimitiveType, dtype_to_etype, etype_to_dtype
from backend.host_io import execute_with_io, register_custom_call_target, unregister_custom_call_target
from backend.shape import Layout, Shape, shape_from_pyval

__all__ = [
    "Backend", "ComparisonDirection", "CustomCallApiVersion", "CustomCallSchedule", "ComparisonType", "ConvolutionDimensionNumbers", "DotDimensionNumbers",
    "GatherDimensionNumbers", "Layout", "ScatterDimensionNumbers", "make_convolution_dimension_numbers", "OpError", "PaddingConfig", "PaddingConfigDimension", "Precision", "PrecisionConfig", "PrimitiveType", "ProgramShape", "RandomAlgorithm",
    "ExecutionError", "ResultAccuracy", "ResultAccuracyMode", "Shape", "SpecError", "UnsupportedError", "XlaBuilder",
    "XlaComputation", "XlaOp", "available_backends", "dtype_to_etype", "etype_to_dtype", "get_backend", "make_dot_dimension_numbers", "make_padding_config", "ops",
    "register_backend", "shape_from_pyval", "execute_with_io", "register_custom_call_target",
    "unregister_custom_call_target", "TriangularSolveOptions_Transpose",
]
