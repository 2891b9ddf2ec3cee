"""The enums and helper functions of the former ``xla_client`` module that are not ops or value types.

Values and semantics as in XLA's ``xla_client.py`` and ``xla_data.proto``: ``PaddingType`` and
:func:`window_padding_type_to_pad_values` (SAME splits the padding with the extra element on the
high side), the proto enums by their xla_client names, :func:`CurrentSourceInfoMetadata`, and the
``make_*`` helpers that build attribute values from xla_client's plain forms (through the normalizers).
"""

from __future__ import annotations

import enum
import inspect
import os
from collections.abc import Sequence
from typing import Any

from backend.errors import OpError
from backend.hlo import attributes
from backend.hlo.attribute_types import (  # noqa: F401 (xla_client's enums, re-exported here with the others)
    ConvolutionDimensionNumbers,
    CustomCallApiVersion,
    CustomCallSchedule,
    DotDimensionNumbers,
    FftType,
    OpMetadata,
    PaddingConfig,
    Precision,
    RandomAlgorithm,
    ReplicaGroup,
    ResultAccuracyMode,
    TriangularSolveOptions_Transpose,
    default_conv_dimension_numbers,
)


class PaddingType(enum.Enum):
    VALID = 1
    SAME = 2


PrecisionConfig_Precision = Precision
ResultAccuracy_Mode = ResultAccuracyMode

_HELPER = "window_padding_type_to_pad_values"


def _dims(name: str, value: Any) -> list[int]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise OpError(_HELPER, "arg-type", f"expected a sequence of integers, got {value!r}", name, {name: value})
    out = list(value)
    if not all(isinstance(x, (int,)) or hasattr(x, "__index__") for x in out) or any(isinstance(x, bool) for x in out):
        raise OpError(_HELPER, "arg-type", f"expected a sequence of integers, got {value!r}", name, {name: value})
    return [int(x) for x in out]


def window_padding_type_to_pad_values(padding_type: PaddingType | str, lhs_dims: Sequence[int],
                                      rhs_dims: Sequence[int], window_strides: Sequence[int]) -> list[tuple[int, int]]:
    """The ``(low, high)`` padding of each spatial dimension for a padding type, as xla_client.

    VALID: no padding. SAME: the output has ``ceil(in / stride)`` elements; the padding needed for
    that, ``max((out - 1) * stride + window - in, 0)``, is split ``pad // 2`` low and the rest high.
    ``lhs_dims`` are the input's spatial sizes, ``rhs_dims`` the window's."""
    if isinstance(padding_type, str) and padding_type.upper() in PaddingType.__members__:
        padding_type = PaddingType[padding_type.upper()]
    if not isinstance(padding_type, PaddingType):
        raise OpError(_HELPER, "arg-type", f"padding_type must be PaddingType.VALID, PaddingType.SAME, 'VALID' or "
                      f"'SAME', got {padding_type!r}", "padding_type", {"padding_type": padding_type})
    lhs, rhs, strides = _dims("lhs_dims", lhs_dims), _dims("rhs_dims", rhs_dims), _dims("window_strides", window_strides)
    if not len(lhs) == len(rhs) == len(strides):
        raise OpError(_HELPER, "arg-type", f"lhs_dims {lhs}, rhs_dims {rhs} and window_strides {strides} must have "
                      "one entry per spatial dimension each", "window_strides")
    if any(s <= 0 for s in strides) or any(d < 0 for d in lhs + rhs):
        raise OpError(_HELPER, "arg-type", f"window_strides must be > 0 and sizes >= 0, got lhs_dims {lhs}, rhs_dims "
                      f"{rhs}, window_strides {strides}", "window_strides")
    if padding_type == PaddingType.VALID:
        return [(0, 0)] * len(strides)
    pads = [max((-(-size // stride) - 1) * stride + window - size, 0) for size, window, stride in zip(lhs, rhs, strides)]
    return [(pad // 2, pad - pad // 2) for pad in pads]


def CurrentSourceInfoMetadata(op_type: str | None = None, op_name: str | None = None,  # noqa: N802 (xla_client's)
                              skip_frames: int = 1) -> OpMetadata:
    """An OpMetadata naming the caller's file (base name) and line; ``skip_frames`` frames up the stack
    (1: the function that calls this one)."""
    if isinstance(skip_frames, bool) or not isinstance(skip_frames, int) or skip_frames < 0:
        raise OpError("CurrentSourceInfoMetadata", "arg-type", f"skip_frames must be an integer >= 0, got "
                      f"{skip_frames!r}", "skip_frames")
    frame = inspect.currentframe()
    for _ in range(skip_frames):
        if frame is None or frame.f_back is None:
            break
        frame = frame.f_back
    filename, line = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("", 0)
    return OpMetadata(op_type=op_type or "", op_name=op_name or "", source_file=os.path.basename(filename),
                      source_line=line)


def make_dot_dimension_numbers(dimension_numbers: object) -> DotDimensionNumbers:
    """From ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``, as xla_client took it (a new,
    mutable DotDimensionNumbers)."""
    return _helper("make_dot_dimension_numbers", "dimension_numbers", attributes.dot_dimension_numbers, dimension_numbers).copy()


def _helper(name: str, arg: str, normalize: Any, value: Any) -> Any:
    """``normalize(value)``, its TypeError/ValueError an OpError naming the helper and the argument."""
    try:
        return normalize(value)
    except (TypeError, ValueError) as e:
        if isinstance(e, OpError):
            raise
        raise OpError(name, "arg-type", str(e), arg, {arg: value}) from None


def make_convolution_dimension_numbers(dimension_numbers: object, num_spatial_dimensions: int
                                       ) -> ConvolutionDimensionNumbers:
    """As xla_client: ``None`` (the default layout), three layout strings, or the numbers themselves
    (a new, mutable ConvolutionDimensionNumbers)."""
    if dimension_numbers is None:
        count = _helper("make_convolution_dimension_numbers", "num_spatial_dimensions", _count, num_spatial_dimensions)
        return default_conv_dimension_numbers(count).copy()
    return _helper("make_convolution_dimension_numbers", "dimension_numbers", attributes.convolution_dimension_numbers,
                   dimension_numbers).copy()


def _count(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"expected a number >= 0, got {v!r}")
    return v


def make_replica_groups(replica_groups: object) -> list[ReplicaGroup]:
    """As xla_client: ``None`` (every replica in one group: no groups) or a sequence of sequences of
    replica ids, as new, mutable ReplicaGroups."""
    groups = _helper("make_replica_groups", "replica_groups", attributes.replica_groups, replica_groups)
    return [g.copy() for g in groups]


def make_padding_config(padding_config: object) -> PaddingConfig:
    """From a sequence of ``(low, high, interior)`` triples (or a PaddingConfig), as xla_client took it
    (a new, mutable PaddingConfig)."""
    return _helper("make_padding_config", "padding_config", attributes.padding_config, padding_config).copy()
