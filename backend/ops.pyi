# Generated from the specs by `python -m docgen.ops_stub --write`: do not edit by hand.
"""The functions :mod:`backend.ops` makes at run time from the specs, declared for IDEs and type checkers.

Each op takes its spec's arguments (``specs/ops/<op>.yaml``); a function with several call forms has one
overload per form.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

import numpy as np

from backend.hlo.attribute_types import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    PaddingConfig,
    Precision,
    PrecisionConfig,
    RaggedDotDimensionNumbers,
    ReplicaGroup,
    ResultAccuracy,
    ScatterDimensionNumbers,
)
from backend.hlo.attribute_types import CustomCallApiVersion as CustomCallApiVersion
from backend.hlo.attribute_types import CustomCallSchedule as CustomCallSchedule
from backend.hlo.attribute_types import FftType as FftType
from backend.hlo.attribute_types import RandomAlgorithm as RandomAlgorithm
from backend.hlo.attribute_types import TriangularSolveOptions_Transpose as TriangularSolveOptions_Transpose
from backend.hlo.builder import XlaBuilder
from backend.hlo.etypes import PrimitiveType
from backend.hlo.graph import XlaComputation, XlaOp
from backend.hlo.shape import Layout, Shape
from backend.hlo.xla_client_helpers import PaddingType as PaddingType
from backend.hlo.xla_client_helpers import PrecisionConfig_Precision as PrecisionConfig_Precision
from backend.hlo.xla_client_helpers import ResultAccuracy_Mode as ResultAccuracy_Mode
from backend.rules import OpContext

WINDOW_DEFAULTS: dict[str, dict[str, Any]]
DEFAULTS: dict[str, Callable[[OpContext], dict[str, Any]]]
SEVERAL_RESULTS: dict[str, int]
ENUMS: tuple[str, ...]

def build_op(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> XlaOp:
    """Build ``spec``'s op from a call in the spec's own signature."""

def build_op_in_forms(
    spec: Any,
    forms: tuple[Any, ...],
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> XlaOp:
    """Build ``spec``'s op from a call in one of ``forms`` (``None``: the spec's own signature; a tuple of argument names: one of the spec's ``forms``, an op whose signatures take different arguments)."""

def build(name: str, /, *args: Any, **kwargs: Any) -> XlaOp:
    """``ops.<name>(*args, **kwargs)`` as the one XlaOp of its instruction: for the ops of :data:`SEVERAL_RESULTS` the tuple-shaped XlaOp (what a graph, a conformance case or GetTupleElement takes), not xla_client's Python tuple of XlaOps; for every other op the same XlaOp ``ops.<name>`` returns."""

def Abs(operand: XlaOp) -> XlaOp:
    """Element-wise absolute value x -> |x|."""

def Acos(operand: XlaOp) -> XlaOp:
    """Element-wise arc cosine x -> acos(x)."""

def Acosh(operand: XlaOp) -> XlaOp:
    """Element-wise inverse hyperbolic cosine x -> acosh(x)."""

def Add(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise addition of lhs and rhs."""

def AddDependency(operand: XlaOp, token: XlaOp) -> XlaOp:
    """Passes its operand on, ordered after a token (an internal HLO instruction)."""

@overload
def AfterAll(tokens: Sequence[XlaOp]) -> XlaOp:
    """Joins tokens into one token that orders an op after all of them."""

@overload
def AfterAll(builder: XlaBuilder, tokens: Sequence[XlaOp]) -> XlaOp:
    """Joins tokens into one token that orders an op after all of them."""

@overload
def AllGather(
    operand: XlaOp,
    all_gather_dimension: int,
    shard_count: int,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
    layout: Layout | Shape | str | Sequence[int] | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Concatenates the operands of the devices of each replica group along one dimension."""

@overload
def AllGather(
    operand: XlaOp,
    all_gather_dimension: int,
    shard_count: int,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
    shape_with_layout: Layout | Shape | str | Sequence[int] | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Concatenates the operands of the devices of each replica group along one dimension."""

def AllGatherDone(operand: XlaOp) -> XlaOp:
    """Waits for an AllGatherStart and gives the gathered array (an internal HLO instruction)."""

def AllGatherStart(
    operand: XlaOp,
    all_gather_dimension: int,
    shard_count: int,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Starts an AllGather; AllGatherDone gives its result (an internal HLO instruction)."""

def AllReduce(
    operand: XlaOp,
    computation: XlaComputation,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
    shape_with_layout: Shape | str | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Combines the operand of every device in a group with a reduction computation; every device of the group gets the result."""

def AllReduceDone(operand: XlaOp) -> XlaOp:
    """Waits for an AllReduceStart and gives the reduced array (an internal HLO instruction)."""

def AllReduceStart(
    operand: XlaOp,
    computation: XlaComputation,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Starts an AllReduce; AllReduceDone gives its result (an internal HLO instruction)."""

def AllToAll(
    operand: XlaOp,
    split_dimension: int,
    concat_dimension: int,
    split_count: int,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    layout: Layout | Shape | str | Sequence[int] | None = None,
    channel_id: Any = None,
) -> XlaOp:
    """Splits the operand of every device of a group into pieces, sends piece i to the group's i-th device, and concatenates the pieces received."""

def And(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise bitwise AND of lhs and rhs (logical AND for PRED)."""

def ApproxTopK(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    init_values: Sequence[XlaOp],
    top_k: int,
    reduction_dim: int,
    comparator: XlaComputation,
    recall_target: float = 0.9,
    aggregate_to_topk: bool = True,
    reduction_input_size_override: int = -1,
) -> XlaOp:
    """The top k elements along one dimension by a comparator, which XLA on TPU finds approximately (xla_client's ApproxTopK)."""

def ApproxTopKFallback(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    init_values: Sequence[XlaOp],
    top_k: int,
    reduction_dim: int,
    comparator: XlaComputation,
    recall_target: float = 0.9,
    aggregate_to_topk: bool = True,
    reduction_input_size_override: int = -1,
) -> XlaOp:
    """ApproxTopK's exact form on every platform (xla_client's ApproxTopKFallback): sort by the comparator, then slice."""

def ApproxTopKReductionOutputSize(
    input_size: int,
    rank: int,
    top_k: int,
    recall_target: float,
    aggregate_to_topk: bool = True,
    input_size_override: int = -1,
) -> tuple[int, int]:
    """xla_client's ApproxTopKReductionOutputSize: ``(output_size, log2_reduction)`` of ApproxTopK's TPU reduction of a row of ``input_size`` elements, as XLA computes it (``approx_topk_shape.cc``)."""

def Asin(operand: XlaOp) -> XlaOp:
    """Element-wise arc sine x -> asin(x)."""

def Asinh(operand: XlaOp) -> XlaOp:
    """Element-wise inverse hyperbolic sine x -> asinh(x)."""

def AsyncDone(operand: XlaOp) -> XlaOp:
    """Waits for an asynchronous operation and gives its result (an internal HLO instruction)."""

def AsyncStart(operands: Sequence[XlaOp], computation: XlaComputation) -> XlaOp:
    """Starts running a computation asynchronously; AsyncDone gives its result (an internal HLO instruction)."""

def AsyncUpdate(operand: XlaOp) -> XlaOp:
    """Passes an asynchronous operation's state on while it runs (an internal HLO instruction)."""

def Atan(operand: XlaOp) -> XlaOp:
    """Element-wise arc tangent x -> atan(x)."""

def Atan2(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise two-argument arctangent atan2(lhs, rhs)."""

def Atanh(operand: XlaOp) -> XlaOp:
    """Element-wise inverse hyperbolic tangent x -> atanh(x)."""

def BatchNormGrad(
    operand: XlaOp,
    scale: XlaOp,
    batch_mean: XlaOp,
    batch_var: XlaOp,
    grad_output: XlaOp,
    epsilon: float,
    feature_index: int,
) -> XlaOp:
    """The gradients of batch normalization with respect to the operand, the scale and the offset."""

def BatchNormInference(
    operand: XlaOp,
    scale: XlaOp,
    offset: XlaOp,
    mean: XlaOp,
    variance: XlaOp,
    epsilon: float,
    feature_index: int,
) -> XlaOp:
    """Normalizes an array with a given mean and variance per feature (batch normalization at inference)."""

def BatchNormTraining(operand: XlaOp, scale: XlaOp, offset: XlaOp, epsilon: float, feature_index: int) -> XlaOp:
    """Normalizes an array over the batch and spatial dimensions, returning the batch moments too."""

def BesselI0e(operand: XlaOp) -> XlaOp:
    """Element-wise exponentially scaled modified Bessel function of order 0, i0e(x) = exp(-|x|) I0(x)."""

def BesselI1e(operand: XlaOp) -> XlaOp:
    """Element-wise exponentially scaled modified Bessel function of order 1, i1e(x) = exp(-|x|) I1(x)."""

def Bitcast(operand: XlaOp, shape: Shape | str) -> XlaOp:
    """Reads the operand's memory as an array of another shape or layout (an internal HLO instruction)."""

def BitcastConvertType(operand: XlaOp, new_element_type: PrimitiveType | str | np.dtype[Any] | type[Any]) -> XlaOp:
    """Reinterprets the bits of each element as another element type (a bitcast, like tf.bitcast)."""

@overload
def Broadcast(operand: XlaOp, broadcast_sizes: Sequence[int]) -> XlaOp:
    """Adds dimensions to an array by duplicating its data; the new dimensions come first."""

@overload
def Broadcast(operand: XlaOp, sizes: Sequence[int]) -> XlaOp:
    """Adds dimensions to an array by duplicating its data; the new dimensions come first."""

@overload
def BroadcastInDim(operand: XlaOp, out_dim_size: Sequence[int], broadcast_dimensions: Sequence[int]) -> XlaOp:
    """Expands the size and rank of an array by duplicating its data."""

@overload
def BroadcastInDim(operand: XlaOp, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> XlaOp:
    """Expands the size and rank of an array by duplicating its data."""

@overload
def Call(computation: XlaComputation, operands: Sequence[XlaOp]) -> XlaOp:
    """Invokes a computation with the given arguments."""

@overload
def Call(builder: XlaBuilder, computation: XlaComputation, operands: Sequence[XlaOp]) -> XlaOp:
    """Invokes a computation with the given arguments."""

def Cbrt(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise cube root x -> cbrt(x)."""

def Ceil(operand: XlaOp) -> XlaOp:
    """Element-wise ceiling x -> ⌈x⌉."""

def Cholesky(a: XlaOp, lower: bool = True) -> XlaOp:
    """Cholesky decomposition of a batch of symmetric (Hermitian) positive-definite matrices."""

def Clamp(min: XlaOp, operand: XlaOp, max: XlaOp) -> XlaOp:
    """Clamps an operand to the range between a minimum and a maximum value."""

def Clz(operand: XlaOp) -> XlaOp:
    """Element-wise count of leading zero bits."""

def Collapse(operand: XlaOp, dimensions: Sequence[int]) -> XlaOp:
    """Collapses consecutive dimensions of an array into one dimension."""

def CollectiveBroadcast(
    operand: XlaOp,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
) -> XlaOp:
    """Sends the operand of each replica group's first device to the group's other devices."""

def CollectivePermute(
    operand: XlaOp,
    source_target_pairs: Sequence[Sequence[int]],
    channel_id: Any = None,
    inplace: bool = False,
) -> XlaOp:
    """Sends the operand from each source device to its target device; devices no pair targets get zeros."""

def CollectivePermuteDone(operand: XlaOp) -> XlaOp:
    """Waits for a CollectivePermuteStart and gives the received array (an internal HLO instruction)."""

def CollectivePermuteStart(
    operand: XlaOp,
    source_target_pairs: Sequence[Sequence[int]],
    channel_id: Any = None,
) -> XlaOp:
    """Starts a CollectivePermute; CollectivePermuteDone gives its result (an internal HLO instruction)."""

def Compare(
    lhs: XlaOp,
    rhs: XlaOp,
    broadcast_dimensions: Sequence[int],
    direction: ComparisonDirection | str,
    compare_type: ComparisonType | str | None = None,
) -> XlaOp:
    """Element-wise comparison of lhs and rhs in a given direction and comparison type, a PRED array."""

def Complex(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise construction of complex values from real parts lhs and imaginary parts rhs."""

@overload
def CompositeCall(
    computation: XlaComputation,
    operands: Sequence[XlaOp],
    name: str,
    attributes: str | None = None,
    version: int | None = None,
) -> XlaOp:
    """A composite operation made of other operations, whose semantics is its decomposition."""

@overload
def CompositeCall(
    builder: XlaBuilder,
    computation: XlaComputation,
    operands: Sequence[XlaOp],
    name: str,
    attributes: str | None = None,
    version: int | None = None,
) -> XlaOp:
    """A composite operation made of other operations, whose semantics is its decomposition."""

def ConcatInDim(builder: XlaBuilder, operands: Sequence[XlaOp], dimension: int) -> XlaOp:
    """Concatenates arrays along one dimension."""

@overload
def Conditional(
    predicate: XlaOp,
    true_operand: XlaOp,
    true_computation: XlaComputation,
    false_operand: XlaOp,
    false_computation: XlaComputation,
) -> XlaOp:
    """Runs one of several computations, chosen by a predicate or a branch index, and returns its result."""

@overload
def Conditional(
    branch_index: XlaOp,
    branch_computations: Sequence[XlaComputation],
    branch_operands: Sequence[XlaOp],
) -> XlaOp:
    """Runs one of several computations, chosen by a predicate or a branch index, and returns its result."""

def Conj(operand: XlaOp) -> XlaOp:
    """Element-wise complex conjugate x + yi -> x - yi."""

def Constant(builder: XlaBuilder, literal: Any) -> XlaOp:
    """An array (or tuple) whose value is fixed when the computation is built."""

def ConstantLiteral(builder: XlaBuilder, literal: Any) -> XlaOp:
    """An array (or tuple) whose value is fixed when the computation is built."""

def Conv(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: str,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """A convolution with XLA's default dimension numbers, no dilation, and SAME or VALID padding."""

def ConvGeneral(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    dimension_numbers: ConvolutionDimensionNumbers | Sequence[str] | Mapping[str, Any],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """Conv with explicit (low, high) padding and explicit dimension numbers (no dilation)."""

def ConvGeneralDilated(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    dimension_numbers: ConvolutionDimensionNumbers | Sequence[str] | Mapping[str, Any] | None = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
    window_reversal: Sequence[bool] | None = None,
) -> XlaOp:
    """The general convolution, with explicit padding, input and window dilation, dimension numbers, feature and batch groups, and window reversal."""

def ConvWithGeneralDimensions(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: str,
    dimension_numbers: ConvolutionDimensionNumbers | Sequence[str] | Mapping[str, Any],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """Conv with explicit dimension numbers (SAME or VALID padding, no dilation)."""

def ConvWithGeneralPadding(
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """Conv with explicit (low, high) padding per spatial dimension."""

def ConvertElementType(operand: XlaOp, new_element_type: PrimitiveType | str | np.dtype[Any] | type[Any]) -> XlaOp:
    """Element-wise conversion of an array to another element type, like a C++ static_cast per element."""

def Copy(operand: XlaOp) -> XlaOp:
    """A copy of its operand, in a new buffer (an internal HLO instruction)."""

def CopyDone(operand: XlaOp) -> XlaOp:
    """Waits for a CopyStart's copy and gives it (an internal HLO instruction)."""

def CopyStart(operand: XlaOp) -> XlaOp:
    """Starts an asynchronous copy; CopyDone gives the copy (an internal HLO instruction)."""

def Cos(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise cosine x -> cos(x)."""

def Cosh(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise hyperbolic cosine x -> cosh(x)."""

def CreateToken(builder: XlaBuilder) -> XlaOp:
    """Creates a token, the value that orders side-effecting ops."""

def CrossReplicaSum(operand: XlaOp, replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...) -> XlaOp:
    """AllReduce with a sum, across the replicas of each group."""

def CustomCall(
    builder: XlaBuilder,
    call_target_name: str | bytes,
    operands: Sequence[XlaOp],
    shape: Shape | str,
    opaque: bytes | str = '',
    has_side_effect: bool = False,
    schedule: CustomCallSchedule | str | int = 'SCHEDULE_NONE',
    api_version: CustomCallApiVersion | str | int = 'API_VERSION_ORIGINAL',
) -> XlaOp:
    """Calls a user-provided function (a registered target) within a computation."""

def CustomCallWithAliasing(
    builder: XlaBuilder,
    call_target_name: str | bytes,
    operands: Sequence[XlaOp],
    shape_with_layout: Shape | str,
    operand_shapes_with_layout: Sequence[Shape | str],
    opaque: bytes | str = '',
    has_side_effect: bool = False,
    output_operand_aliasing: Sequence[tuple[Sequence[int], tuple[int, Sequence[int]]]] = ...,
    literal: Any = None,
    schedule: CustomCallSchedule | str | int = 'SCHEDULE_NONE',
    api_version: CustomCallApiVersion | str | int = 'API_VERSION_ORIGINAL',
) -> XlaOp:
    """CustomCallWithLayout whose result may share operands' buffers."""

def CustomCallWithComputation(
    builder: XlaBuilder,
    call_target_name: str | bytes,
    operands: Sequence[XlaOp],
    computation: XlaComputation,
    shape: Shape | str,
    opaque: bytes | str = '',
    has_side_effect: bool = False,
    output_operand_aliasing: Sequence[tuple[Sequence[int], tuple[int, Sequence[int]]]] = ...,
    literal: Any = None,
    schedule: CustomCallSchedule | str | int = 'SCHEDULE_NONE',
    api_version: CustomCallApiVersion | str | int = 'API_VERSION_ORIGINAL',
) -> XlaOp:
    """CustomCall with a called computation the target may run."""

def CustomCallWithLayout(
    builder: XlaBuilder,
    call_target_name: str | bytes,
    operands: Sequence[XlaOp],
    shape_with_layout: Shape | str,
    operand_shapes_with_layout: Sequence[Shape | str],
    opaque: bytes | str = '',
    has_side_effect: bool = False,
    schedule: CustomCallSchedule | str | int = 'SCHEDULE_NONE',
    api_version: CustomCallApiVersion | str | int = 'API_VERSION_ORIGINAL',
) -> XlaOp:
    """CustomCall with the result's and the operands' layouts given."""

def Digamma(operand: XlaOp) -> XlaOp:
    """Element-wise digamma function psi(x) = Gamma'(x) / Gamma(x)."""

def Div(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise division of the dividend lhs by the divisor rhs."""

def Domain(operand: XlaOp, kind: str = 'sharding', entry_metadata: str = '', exit_metadata: str = '') -> XlaOp:
    """Marks a boundary between domains (e.g. of shardings); passes its operand on (an internal HLO instruction)."""

def Dot(
    lhs: XlaOp,
    rhs: XlaOp,
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """Vector-vector, matrix-vector or matrix-matrix product."""

def DotGeneral(
    lhs: XlaOp,
    rhs: XlaOp,
    dimension_numbers: DotDimensionNumbers | Sequence[Sequence[Sequence[int]]] | Mapping[str, Any],
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """Sum of products over the contracting dimensions, batched over the batch dimensions."""

def DynamicReshape(
    operand: XlaOp,
    dim_sizes: Sequence[XlaOp],
    new_size_bounds: Sequence[int],
    dims_are_dynamic: Sequence[bool],
) -> XlaOp:
    """A reshape whose result dimensions may be bounded-dynamic, with runtime sizes given as operands."""

def DynamicSlice(operand: XlaOp, start_indices: Sequence[XlaOp], slice_sizes: Sequence[int]) -> XlaOp:
    """Extracts a sub-array of fixed size at start indices computed at run time (clamped into bounds)."""

def DynamicUpdateSlice(operand: XlaOp, update: XlaOp, start_indices: Sequence[XlaOp]) -> XlaOp:
    """Overwrites a sub-array of an array with an update, at start indices computed at run time (clamped into bounds)."""

def Eigh(
    a: XlaOp,
    lower: bool = True,
    max_iter: int = 15,
    epsilon: float = 1e-05,
    sort_eigenvalues: bool = True,
) -> tuple[XlaOp, XlaOp]:
    """Eigendecomposition of a batch of symmetric (Hermitian) matrices (xla_client's Eigh)."""

def Eq(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise equal-to comparison of lhs and rhs (lhs == rhs), a PRED array."""

def EqTotalOrder(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise equal-to comparison of floating-point lhs and rhs in the IEEE total order."""

def Erf(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise error function x -> erf(x)."""

def ErfInv(operand: XlaOp) -> XlaOp:
    """Element-wise inverse error function x -> erfinv(x)."""

def Erfc(operand: XlaOp) -> XlaOp:
    """Element-wise complementary error function x -> erfc(x) = 1 - erf(x)."""

def Exp(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise natural exponential x -> e^x."""

def Expm1(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise natural exponential minus one x -> e^x - 1."""

def Fft(operand: XlaOp, fft_type: FftType | str | int, fft_length: Sequence[int]) -> XlaOp:
    """Forward and inverse, real and complex Fourier transforms over the 1 to 3 trailing dimensions."""

def Floor(operand: XlaOp) -> XlaOp:
    """Element-wise floor x -> ⌊x⌋."""

def Fusion(operands: Sequence[XlaOp], fused_computation: XlaComputation, kind: str = 'kLoop') -> XlaOp:
    """Runs a fused computation on its operands as one kernel (an internal HLO instruction)."""

@overload
def Gather(
    operand: XlaOp,
    start_indices: XlaOp,
    dimension_numbers: GatherDimensionNumbers | Mapping[str, Any],
    slice_sizes: Sequence[int],
    indices_are_sorted: bool = False,
) -> XlaOp:
    """Gathers several slices, each at a possibly different runtime offset, from an operand array."""

@overload
def Gather(
    a: XlaOp,
    start_indices: XlaOp,
    dimension_numbers: GatherDimensionNumbers | Mapping[str, Any],
    slice_sizes: Sequence[int],
    indices_are_sorted: bool = False,
) -> XlaOp:
    """Gathers several slices, each at a possibly different runtime offset, from an operand array."""

def Ge(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise greater-than-or-equal-to comparison of lhs and rhs (lhs >= rhs), a PRED array."""

def GeTotalOrder(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise greater-than-or-equal-to comparison of floating-point lhs and rhs in the IEEE total order."""

def GetDimensionSize(operand: XlaOp, dimension: int) -> XlaOp:
    """Returns the size of a dimension of the operand, as an s32 scalar."""

def GetTupleElement(tuple_data: XlaOp, index: int) -> XlaOp:
    """Indexes into a tuple with a compile-time-constant index."""

def Gt(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise greater-than comparison of lhs and rhs (lhs > rhs), a PRED array."""

def GtTotalOrder(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise greater-than comparison of floating-point lhs and rhs in the IEEE total order."""

def Igamma(a: XlaOp, x: XlaOp) -> XlaOp:
    """Element-wise regularized lower incomplete gamma function P(a, x)."""

def IgammaGradA(a: XlaOp, x: XlaOp) -> XlaOp:
    """Element-wise derivative of the regularized lower incomplete gamma function with respect to a."""

def Igammac(a: XlaOp, x: XlaOp) -> XlaOp:
    """Element-wise regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""

def Imag(operand: XlaOp) -> XlaOp:
    """Element-wise imaginary part of a complex (or real) array, x -> imag(x)."""

def Infeed(builder: XlaBuilder, shape: Shape | str, config: str = '') -> XlaOp:
    """Reads one data item from the infeed, as the given shape."""

def InfeedWithToken(token: XlaOp, shape: Shape | str, config: str = '') -> XlaOp:
    """Reads one data item from the infeed after a token; returns (data, token)."""

@overload
def Iota(builder: XlaBuilder, shape: Shape | str, iota_dimension: int) -> XlaOp:
    """Creates an array of the given shape whose values count up from zero along one dimension."""

@overload
def Iota(builder: XlaBuilder, type: PrimitiveType | str | np.dtype[Any] | type[Any], size: int) -> XlaOp:
    """Creates an array of the given shape whose values count up from zero along one dimension."""

def IsFinite(operand: XlaOp) -> XlaOp:
    """Element-wise test that each element is finite (not +-inf and not NaN)."""

def LU(operand: XlaOp) -> tuple[XlaOp, XlaOp, XlaOp]:
    """LU decomposition with partial pivoting of a batch of matrices (xla_client's LU)."""

def Le(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise less-than-or-equal-to comparison of lhs and rhs (lhs <= rhs), a PRED array."""

def LeTotalOrder(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise less-than-or-equal-to comparison of floating-point lhs and rhs in the IEEE total order."""

def Lgamma(operand: XlaOp) -> XlaOp:
    """Element-wise natural logarithm of the absolute value of the gamma function."""

def Log(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise natural logarithm x -> ln(x)."""

def Log1p(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise natural logarithm of one plus x, x -> ln(1+x)."""

def Logistic(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise logistic function x -> 1 / (1 + e^-x)."""

def Lt(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise less-than comparison of lhs and rhs (lhs < rhs), a PRED array."""

def LtTotalOrder(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise less-than comparison of floating-point lhs and rhs in the IEEE total order."""

@overload
def Map(
    operands: Sequence[XlaOp],
    computation: XlaComputation,
    dimensions: Sequence[int],
    static_operands: Sequence[XlaOp] = ...,
) -> XlaOp:
    """Applies a scalar computation to the elements of N arrays at each index (with M static operands)."""

@overload
def Map(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    computation: XlaComputation,
    dimensions: Sequence[int],
    static_operands: Sequence[XlaOp] = ...,
) -> XlaOp:
    """Applies a scalar computation to the elements of N arrays at each index (with M static operands)."""

def Max(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise maximum of lhs and rhs."""

def Min(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise minimum of lhs and rhs."""

def Mul(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise multiplication lhs * rhs."""

def MultiCollectivePermute(
    operands: Sequence[XlaOp],
    source_target_pairs: Sequence[Sequence[int]],
    channel_id: Any = None,
    inplace: bool = False,
) -> XlaOp:
    """CollectivePermute of several operands at once with the same source-target pairs (xla_client's)."""

def Ne(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise not-equal-to comparison of lhs and rhs (lhs != rhs), a PRED array."""

def NeTotalOrder(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise not-equal-to comparison of floating-point lhs and rhs in the IEEE total order."""

def Neg(operand: XlaOp) -> XlaOp:
    """Element-wise negation x -> -x."""

def NextAfter(from_: XlaOp, to: XlaOp) -> XlaOp:
    """Element-wise next representable value after `from` in the direction of `to` (C nextafter)."""

def Not(operand: XlaOp) -> XlaOp:
    """Element-wise logical not x -> !(x)."""

def OptimizationBarrier(operand: XlaOp) -> XlaOp:
    """Returns its operand unchanged, and keeps optimizations from moving computations across it."""

def Or(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise bitwise OR of lhs and rhs (logical OR for PRED)."""

def Outfeed(operand: XlaOp, shape_with_layout: Shape | str, outfeed_config: str = '') -> XlaOp:
    """Writes the operand to the outfeed."""

def OutfeedWithToken(operand: XlaOp, token: XlaOp, shape_with_layout: Shape | str, outfeed_config: str = '') -> XlaOp:
    """Writes the operand to the outfeed after a token; returns a token."""

def Pad(operand: XlaOp, padding_value: XlaOp, padding_config: PaddingConfig | Sequence[Sequence[int]]) -> XlaOp:
    """Adds edge and interior padding to an array."""

@overload
def Parameter(
    builder: XlaBuilder,
    number: int,
    shape: Shape | str,
    name: str = '',
    replicated_at_leaf_buffers: Sequence[bool] = ...,
) -> XlaOp:
    """A value passed to the computation when it runs."""

@overload
def Parameter(
    builder: XlaBuilder,
    parameter_number: int,
    shape: Shape | str,
    name: str = '',
    replicated_at_leaf_buffers: Sequence[bool] = ...,
) -> XlaOp:
    """A value passed to the computation when it runs."""

def PartitionID(builder: XlaBuilder, shape: Shape | str | None = None) -> XlaOp:
    """The partition id of the device running the computation, an unsigned 32-bit scalar."""

def PartitionId(builder: XlaBuilder, shape: Shape | str | None = None) -> XlaOp:
    """The partition id of the device running the computation, an unsigned 32-bit scalar."""

def PopulationCount(operand: XlaOp) -> XlaOp:
    """Element-wise count of set bits."""

def Pow(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise power lhs ** rhs."""

def ProductOfElementaryHouseholderReflectors(a: XlaOp, taus: XlaOp) -> XlaOp:
    """Q from Householder reflectors, the first N columns of H_0 H_1 ... H_{K-1} (xla_client's, LAPACK's orgqr)."""

def QR(operand: XlaOp, full_matrices: bool = True) -> tuple[XlaOp, XlaOp]:
    """QR decomposition of a batch of matrices (xla_client's QR)."""

def QrDecomposition(operand: XlaOp) -> tuple[XlaOp, XlaOp]:
    """QR decomposition of a batch of matrices in LAPACK's Householder form (xla_client's QrDecomposition, geqrf)."""

def RaggedAllToAll(
    input: XlaOp,
    input_offsets: XlaOp,
    send_sizes: XlaOp,
    output: XlaOp,
    output_offsets: XlaOp,
    recv_sizes: XlaOp,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
) -> XlaOp:
    """An all-to-all whose pieces are ragged segments of dimension 0, placed at given offsets of every peer's output."""

def RaggedDot(
    lhs: XlaOp,
    rhs: XlaOp,
    group_sizes: XlaOp,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers | Sequence[Any] | Mapping[str, Any],
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """A DotGeneral with one ragged lhs dimension split into groups of given sizes (StableHLO chlo.ragged_dot)."""

def RandomGammaGrad(a: XlaOp, x: XlaOp) -> XlaOp:
    """Element-wise derivative of a gamma-distributed sample with respect to its shape parameter."""

def Real(operand: XlaOp) -> XlaOp:
    """Element-wise real part of a complex (or real) array, x -> real(x)."""

def Reciprocal(operand: XlaOp) -> XlaOp:
    """Element-wise reciprocal x -> 1 / x."""

def Recv(builder: XlaBuilder, shape: Shape | str, handle: Any) -> XlaOp:
    """Starts receiving data of a shape from the Send with the same handle; returns the transfer's context."""

def RecvDone(context: XlaOp) -> XlaOp:
    """Waits for the transfer a Recv started; returns (the data received, a token)."""

def RecvFromHost(token: XlaOp, shape: Shape | str, handle: Any) -> XlaOp:
    """Receives an array from the host on a host-to-device channel, after a token; returns (data, token)."""

@overload
def Reduce(
    operands: Sequence[XlaOp],
    init_values: Sequence[XlaOp],
    computation: XlaComputation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp:
    """Applies a reduction function to one or more arrays in parallel, over the given dimensions."""

@overload
def Reduce(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    init_values: Sequence[XlaOp],
    computation: XlaComputation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp:
    """Applies a reduction function to one or more arrays in parallel, over the given dimensions."""

def ReducePrecision(operand: XlaOp, exponent_bits: int, mantissa_bits: int) -> XlaOp:
    """Rounds floating-point values as if converted to a format with fewer exponent and mantissa bits, and back."""

def ReduceScatter(
    operand: XlaOp,
    computation: XlaComputation,
    scatter_dimension: int,
    shard_count: int,
    replica_groups: Sequence[ReplicaGroup | Sequence[int]] | None = ...,
    channel_id: Any = None,
    layout: Layout | Shape | str | Sequence[int] | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Reduces the operands of each replica group element-wise and gives each device one shard of the result."""

def ReduceWindow(
    operands: Sequence[XlaOp],
    init_values: Sequence[XlaOp],
    computation: XlaComputation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    base_dilations: Sequence[int] | None = None,
    window_dilations: Sequence[int] | None = None,
) -> XlaOp:
    """Applies a reduction function to every window of one or more arrays (pooling)."""

@overload
def ReduceWindowWithGeneralPadding(
    operand: XlaOp,
    init_value: XlaOp,
    computation: XlaComputation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    base_dilations: Sequence[int] | None,
    window_dilations: Sequence[int] | None,
    padding: Sequence[Sequence[int]],
) -> XlaOp:
    """Applies a reduction function to every window of one or more arrays (pooling)."""

@overload
def ReduceWindowWithGeneralPadding(
    operands: Sequence[XlaOp],
    init_values: Sequence[XlaOp],
    computation: XlaComputation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    base_dilations: Sequence[int] | None,
    window_dilations: Sequence[int] | None,
    padding: Sequence[Sequence[int]],
) -> XlaOp:
    """Applies a reduction function to every window of one or more arrays (pooling)."""

def RegularizedIncompleteBeta(a: XlaOp, b: XlaOp, x: XlaOp) -> XlaOp:
    """Element-wise regularized incomplete beta function I_x(a, b)."""

def Rem(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise remainder of the dividend lhs divided by the divisor rhs."""

def RemoveDynamicDimension(operand: XlaOp, dimension: int) -> XlaOp:
    """Makes a dimension static at its bound."""

def ReplicaId(builder: XlaBuilder) -> XlaOp:
    """The replica id of the device running the computation, an unsigned 32-bit scalar."""

@overload
def Reshape(
    operand: XlaOp,
    dimensions: Sequence[int] | None = None,
    new_sizes: Sequence[int] | None = None,
    shape: Shape | str | None = None,
) -> XlaOp:
    """Reshapes the dimensions of an array into a new configuration."""

@overload
def Reshape(shape: Shape | str | None, operand: XlaOp) -> XlaOp:
    """Reshapes the dimensions of an array into a new configuration."""

@overload
def Reshape(operand: XlaOp, new_sizes: Sequence[int] | None = None) -> XlaOp:
    """Reshapes the dimensions of an array into a new configuration."""

def Rev(operand: XlaOp, dimensions: Sequence[int]) -> XlaOp:
    """Reverses the order of the elements of an array along the given dimensions."""

def RngBitGenerator(algorithm: RandomAlgorithm | str | int, initial_state: XlaOp, shape: Shape | str) -> XlaOp:
    """Uniformly random bits of a shape from an algorithm and a state; returns (new state, bits)."""

def RngGetAndUpdateState(builder: XlaBuilder, delta: int) -> XlaOp:
    """Reads XLA's internal random-number state and advances it (an internal HLO instruction)."""

def RngNormal(mu: XlaOp, sigma: XlaOp, shape: Shape | str) -> XlaOp:
    """An array of the given shape of random numbers from the normal distribution N(mu, sigma)."""

def RngUniform(a: XlaOp, b: XlaOp, shape: Shape | str) -> XlaOp:
    """An array of the given shape of random numbers uniform on [a, b)."""

def Round(operand: XlaOp) -> XlaOp:
    """Element-wise rounding to the nearest integer, ties away from zero (RoundNearestAfz)."""

def RoundNearestAfz(operand: XlaOp) -> XlaOp:
    """Element-wise rounding to the nearest integer, ties away from zero."""

def RoundNearestEven(operand: XlaOp) -> XlaOp:
    """Element-wise rounding to the nearest integer, ties to even."""

def Rsqrt(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise reciprocal square root x -> 1.0 / sqrt(x)."""

def SVD(a: XlaOp, max_iter: int = 100, epsilon: float = 1e-06) -> tuple[XlaOp, XlaOp, XlaOp]:
    """Singular value decomposition of a batch of matrices (xla_client's SVD)."""

@overload
def ScaledDot(
    lhs: XlaOp,
    lhs_scale: XlaOp,
    rhs: XlaOp,
    rhs_scale: XlaOp,
    dimension_numbers: DotDimensionNumbers | Sequence[Sequence[Sequence[int]]] | Mapping[str, Any],
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """DotGeneral of two operands each multiplied by its blockwise scales (MX and other block-scaled formats)."""

@overload
def ScaledDot(
    lhs: XlaOp,
    lhs_scale: XlaOp,
    rhs: XlaOp,
    rhs_scale: XlaOp,
    *,
    dimension_number: DotDimensionNumbers | Sequence[Sequence[Sequence[int]]] | Mapping[str, Any],
    precision_config: PrecisionConfig | Precision | str | int | Sequence[Precision | str | int] | None = None,
    preferred_element_type: PrimitiveType | str | np.dtype[Any] | type[Any] | None = None,
) -> XlaOp:
    """DotGeneral of two operands each multiplied by its blockwise scales (MX and other block-scaled formats)."""

def Scan(
    inputs: Sequence[XlaOp],
    inits: Sequence[XlaOp],
    to_apply: XlaComputation,
    scan_dimension: int,
    is_reverse: bool = False,
    is_associative: bool | None = None,
) -> XlaOp:
    """Applies a step computation along one dimension of arrays, carrying state; returns every step's outputs and the final carries."""

@overload
def Scatter(
    operands: Sequence[XlaOp],
    scatter_indices: XlaOp,
    updates: Sequence[XlaOp],
    update_computation: XlaComputation,
    dimension_numbers: ScatterDimensionNumbers | Mapping[str, Any],
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> XlaOp:
    """Returns the operands with several slices, at indices given by scatter_indices, combined with updates by update_computation."""

@overload
def Scatter(
    input: XlaOp,
    scatter_indices: XlaOp,
    updates: XlaOp,
    update_computation: XlaComputation,
    dimension_numbers: ScatterDimensionNumbers | Mapping[str, Any],
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> XlaOp:
    """Returns the operands with several slices, at indices given by scatter_indices, combined with updates by update_computation."""

@overload
def Scatter(
    inputs: Sequence[XlaOp],
    scatter_indices: XlaOp,
    updates: Sequence[XlaOp],
    update_computation: XlaComputation,
    dimension_numbers: ScatterDimensionNumbers | Mapping[str, Any],
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> XlaOp:
    """Returns the operands with several slices, at indices given by scatter_indices, combined with updates by update_computation."""

def Select(pred: XlaOp, on_true: XlaOp, on_false: XlaOp) -> XlaOp:
    """Builds an array from the elements of two arrays, chosen by the values of a predicate array."""

def SelectAndScatter(
    operand: XlaOp,
    select: XlaComputation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    source: XlaOp,
    init_value: XlaOp,
    scatter: XlaComputation,
) -> XlaOp:
    """Selects one element of every window of operand and scatters the source values onto the selected indices."""

def SelectAndScatterWithGeneralPadding(
    operand: XlaOp,
    select: XlaComputation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[Sequence[int]],
    source: XlaOp,
    init_value: XlaOp,
    scatter: XlaComputation,
) -> XlaOp:
    """Selects one element of every window of operand and scatters the source values onto the selected indices."""

def Send(operand: XlaOp, handle: Any) -> XlaOp:
    """Starts sending the operand on a channel to the Recv with the same handle; returns the transfer's context."""

def SendDone(context: XlaOp) -> XlaOp:
    """Waits for the transfer a Send started; returns a token."""

def SendToHost(operand: XlaOp, token: XlaOp, shape_with_layout: Shape | str, handle: Any) -> XlaOp:
    """Sends the operand to the host on a device-to-host channel, after a token; returns a token."""

def SetDimensionSize(operand: XlaOp, val: XlaOp, dimension: int) -> XlaOp:
    """Sets the runtime size of a dimension, making it a bounded-dynamic dimension."""

def ShiftLeft(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise left shift of lhs by rhs bits."""

def ShiftRightArithmetic(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise arithmetic right shift of lhs by rhs bits."""

def ShiftRightLogical(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise logical right shift of lhs by rhs bits."""

def Sign(operand: XlaOp) -> XlaOp:
    """Element-wise sign x -> sgn(x)."""

def Sin(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise sine x -> sin(x)."""

def Sinh(operand: XlaOp) -> XlaOp:
    """Element-wise hyperbolic sine x -> sinh(x)."""

def Slice(
    operand: XlaOp,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> XlaOp:
    """Extracts a sub-array (a bounding box, optionally strided) from an array."""

def SliceInDim(operand: XlaOp, start_index: int, limit_index: int, stride: int, dimno: int) -> XlaOp:
    """Slices one dimension of an array (start, limit, stride), keeping every other dimension whole."""

@overload
def Sort(
    operands: Sequence[XlaOp],
    comparator: XlaComputation | None = None,
    dimension: int = -1,
    is_stable: bool = False,
) -> XlaOp:
    """Sorts one or more arrays together along a dimension with a comparator computation."""

@overload
def Sort(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    comparator: XlaComputation | None = None,
    dimension: int = -1,
    is_stable: bool = False,
) -> XlaOp:
    """Sorts one or more arrays together along a dimension with a comparator computation."""

def Sqrt(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise square root x -> sqrt(x)."""

def Square(operand: XlaOp) -> XlaOp:
    """Element-wise square x -> x * x."""

def Sub(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise subtraction lhs - rhs."""

def Tan(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise tangent x -> tan(x)."""

def Tanh(operand: XlaOp, result_accuracy: ResultAccuracy | str | Mapping[str, Any] | None = None) -> XlaOp:
    """Element-wise hyperbolic tangent x -> tanh(x)."""

@overload
def TopK(operand: XlaOp, k: int, largest: bool = True) -> XlaOp:
    """The k largest (or smallest) elements along the last dimension, and their indices."""

@overload
def TopK(input: XlaOp, k: int) -> XlaOp:
    """The k largest (or smallest) elements along the last dimension, and their indices."""

def Transpose(operand: XlaOp, permutation: Sequence[int]) -> XlaOp:
    """Permutes the dimensions of an array."""

def TriangularSolve(
    a: XlaOp,
    b: XlaOp,
    left_side: bool = True,
    lower: bool = True,
    unit_diagonal: bool = False,
    transpose_a: TriangularSolveOptions_Transpose | str | int = 'NO_TRANSPOSE',
) -> XlaOp:
    """Solves triangular systems op(a) x = b or x op(a) = b by forward or back substitution."""

def Tuple(builder: XlaBuilder, elements: Sequence[XlaOp]) -> XlaOp:
    """A tuple of a variable number of data handles, each with its own shape."""

def While(condition: XlaComputation, body: XlaComputation, init: XlaOp) -> XlaOp:
    """Runs body on a value for as long as condition holds of it."""

def Xor(lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None = ...) -> XlaOp:
    """Element-wise bitwise XOR of lhs and rhs (logical XOR for PRED)."""

def Zeta(x: XlaOp, q: XlaOp) -> XlaOp:
    """Element-wise Hurwitz zeta function zeta(x, q)."""
