"""Deciding whether a ``reduce_window`` call runs the kernel, and how."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from pallas_kernels.pooling.geometry import MAX_TAPS, WindowGeometry, make_geometry
from pallas_kernels.toolkit.decisions import KernelDecision

OP_NAME = "reduce_window"

LAX_COMPUTATIONS: dict[str, Callable[..., Any]] = {
    "add": jax.lax.add, "max": jax.lax.max, "min": jax.lax.min, "mul": jax.lax.mul,
}
_CALLABLES: list[tuple[Any, str]] = [
    (jax.lax.add, "add"), (jax.lax.max, "max"), (jax.lax.min, "min"),
    (jax.lax.mul, "mul"), (jnp.add, "add"), (jnp.maximum, "max"),
    (jnp.minimum, "min"), (jnp.multiply, "mul"), (operator.add, "add"),
    (operator.mul, "mul"), (np.add, "add"), (np.maximum, "max"),
    (np.minimum, "min"), (np.multiply, "mul"),
]
_ALIASES = {"sum": "add", "maximum": "max", "minimum": "min", "multiply": "mul",
            "prod": "mul"}

FLOAT_DTYPES = ("bfloat16", "float16", "float32")
INT_DTYPES = ("int8", "int16", "int32", "uint8", "uint16")
"""Integers accumulate in int32: exact for max/min, and add/mul wrap exactly."""


def computation_name(computation: Any) -> str | None:
    """"add" | "max" | "min" | "mul" for a name or a recognised callable."""
    if isinstance(computation, str):
        name = computation.lower()
        name = _ALIASES.get(name, name)
        return name if name in LAX_COMPUTATIONS else None
    for candidate, name in _CALLABLES:
        if computation is candidate:
            return name
    return None


def accumulator_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32 if dtype.name in FLOAT_DTYPES else np.int32)


def normalize_padding(
    shape: Sequence[int], window_dimensions: Sequence[int],
    window_strides: Sequence[int], padding: Any, window_dilation: Sequence[int],
) -> list[tuple[int, int]]:
    """Explicit (low, high) pairs; strings resolved like ``lax.reduce_window``."""
    if isinstance(padding, str):
        dilated = [(w - 1) * r + 1 for w, r in zip(window_dimensions, window_dilation)]
        return [tuple(p) for p in jax.lax.padtype_to_pads(
            shape, dilated, window_strides, padding)]
    return [(int(lo), int(hi)) for lo, hi in padding]


def window_params(
    rank: int, window_dimensions: Sequence[int], window_strides: Any,
    base_dilation: Any, window_dilation: Any,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Defaults (unit strides / dilations) filled in, as int tuples."""
    def ints(values: Any) -> tuple[int, ...]:
        return (1,) * rank if values is None else tuple(int(v) for v in values)
    return (tuple(int(w) for w in window_dimensions), ints(window_strides),
            ints(base_dilation), ints(window_dilation))


def concrete_scalar(value: Any) -> Any:
    """The Python/NumPy value of a concrete scalar, or None for tracers."""
    try:
        array = np.asarray(value)
    except (TypeError, jax.errors.TracerArrayConversionError,
            jax.errors.ConcretizationTypeError):
        return None
    return array.item() if array.shape == () else None


@dataclasses.dataclass(frozen=True)
class ReduceWindowPlan:
    computation: str
    init_value: Any  # Python scalar
    dtype: np.dtype
    accumulator_dtype: np.dtype
    geometry: WindowGeometry


def _fallback(reason: str) -> KernelDecision:
    return KernelDecision.fallback(OP_NAME, reason)


def check_geometry(geometry: WindowGeometry | str) -> str:
    if isinstance(geometry, str):
        return geometry
    if geometry.batch == 0 or geometry.lanes == 0:
        return "an operand or the result is empty (a zero-size dimension)"
    if geometry.num_taps > MAX_TAPS:
        return (f"window has {geometry.num_taps} taps (> {MAX_TAPS}); "
                "huge windows are left to XLA")
    return ""


def plan_reduce_window(
    operand: Any,
    init_value: Any,
    computation: Any,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: Any = "VALID",
    base_dilation: Sequence[int] | None = None,
    window_dilation: Sequence[int] | None = None,
) -> KernelDecision:
    """The kernel plan for ``lax.reduce_window(...)`` or a fallback reason."""
    if isinstance(operand, (tuple, list, dict)):
        return _fallback("several operands (a variadic reduce_window) are not supported")
    name = computation_name(computation)
    if name is None:
        return _fallback(f"computation {computation!r} is not one of add, max, min, mul")
    dtype = np.dtype(operand.dtype)
    if dtype.name not in FLOAT_DTYPES + INT_DTYPES:
        return _fallback(f"dtype {dtype.name} is not supported "
                         f"(kernel covers {', '.join(FLOAT_DTYPES + INT_DTYPES)})")
    init = concrete_scalar(init_value)
    if init is None:
        return _fallback("init_value is not a concrete scalar (traced)")
    shape = tuple(np.shape(operand))
    windows, strides, bases, dilations = window_params(
        len(shape), window_dimensions, window_strides, base_dilation, window_dilation)
    try:
        pads = normalize_padding(shape, windows, strides, padding, dilations)
    except (TypeError, ValueError) as error:
        return _fallback(f"invalid padding {padding!r}: {error}")
    geometry = make_geometry(shape, windows, strides, pads, bases, dilations)
    reason = check_geometry(geometry)
    if reason:
        return _fallback(reason)
    return KernelDecision.kernel(OP_NAME, ReduceWindowPlan(
        computation=name, init_value=init, dtype=dtype,
        accumulator_dtype=accumulator_dtype(dtype), geometry=geometry))
