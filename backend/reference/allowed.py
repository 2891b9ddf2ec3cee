"""Implementation-defined outcomes: where the documents leave a choice, and what may be chosen.

A function registered with ``@implementation_defined("Op")`` returns ``{id: Allowed}`` for the
spec's implementation-defined ids that allow outcomes other than the reference's own. ``mask``
marks the result elements where the choice applies (exactly those); ``outcomes`` maps the name of
every other allowed outcome (as the spec lists it) to what it gives there: an array over the result
(a tuple of arrays for a tuple result), or a predicate ``(actual, expected) -> bool mask`` for the
outcomes that are a set of values rather than one value. The reference's own outcome is the
expected value and is not repeated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo import etypes
from backend.reference import EvaluatorContext
from backend.reference.elementwise import subnormal_mask

Predicate = Callable[[np.ndarray, np.ndarray], np.ndarray]
Outcome = Any  # an array, a tuple of arrays, a Predicate, a Holds, a Within, a Deterministic or a list of them


@dataclasses.dataclass
class Allowed:
    """The elements an implementation-defined behaviour covers and its non-reference outcomes."""

    mask: np.ndarray | tuple[np.ndarray, ...]  # a tuple: one mask per output of a tuple result
    outcomes: dict[str, Outcome]

    def mask_of(self, index: int, shape: tuple[int, ...]) -> np.ndarray:
        """The mask over output ``index`` (of ``shape``)."""
        mask = self.mask[index] if isinstance(self.mask, tuple) else self.mask
        return np.broadcast_to(np.asarray(mask, bool), shape)


@dataclasses.dataclass
class Holds:
    """An outcome judged on the whole result at once: ``check(outputs)`` gives, per output, a bool mask of
    the elements it accepts (the identities a factorization's outputs must satisfy together)."""

    check: Callable[[Any], tuple[np.ndarray, ...]]


@dataclasses.dataclass
class Within:
    """An outcome that applies only in the elements of ``mask`` (for outcomes gathered from several
    entries, as a Call's from its callee's; a list of outcomes allows any of them)."""

    mask: np.ndarray
    outcome: Outcome


@dataclasses.dataclass
class Deterministic:
    """An outcome the backend must give again for the same operands: the documents leave the value open but promise
    a deterministic function of the operands (RngBitGenerator's bits and state). A case excused by it runs a second
    time, and the two results must agree bit for bit."""

    outcome: Outcome


def root_outcomes(comp: Any, args: list[Any], devices: Any = None) -> dict[str, Allowed]:
    """The registered ``{id: Allowed}`` of a computation's root op (none registered: ``{}``), its
    operands evaluated by the reference from the computation's arguments ``args``; ``devices`` is the
    ``backend.reference.devices.DeviceContext`` of a device of a multi-device run (see :func:`root_outcomes_per_device`)."""
    from backend.reference import EVALUATORS, IMPLEMENTATION_DEFINED
    from backend.reference.devices import DeviceContext
    from backend.runtime.walker import EvalContext, GraphWalker, TailCall

    root = comp.root_instruction
    fn = IMPLEMENTATION_DEFINED.get(root.opcode)
    if fn is None:
        return {}
    walker = GraphWalker("reference", EVALUATORS, devices or DeviceContext())
    values: dict[int, Any] = {}
    for inst in comp.instructions:
        if inst.id == root.id:
            break
        value = EVALUATORS.get(inst.opcode)(EvalContext(inst, walker, args),
                                            *inst.grouped([values[o] for o in inst.operands]))
        values[inst.id] = walker.run(value.computation, value.args) if isinstance(value, TailCall) else value
    with np.errstate(all="ignore"):
        return fn(EvalContext(root, walker, args), *root.grouped([values[o] for o in root.operands]))


def root_outcomes_per_device(comp: Any, device_args: list[list[Any]], replicas: int,
                             partitions: int) -> list[dict[str, Allowed]]:
    """:func:`root_outcomes` of every device of a multi-device run (their collectives meet, as in execute)."""
    from backend.reference.devices import run_on_devices

    return run_on_devices("reference", replicas, partitions,
                          lambda device: root_outcomes(comp, device_args[device.device_id], device))


def _flush_real(x: np.ndarray) -> np.ndarray:
    et = etypes.dtype_to_etype(x.dtype)
    if not etypes.is_float(et):
        return x
    with np.errstate(invalid="ignore"):
        wide = x.astype(np.float64)
    tiny = subnormal_mask(x)
    return np.where(tiny, np.copysign(0.0, wide), wide).astype(x.dtype) if tiny.any() else x


def flush_subnormals(x: Any) -> Any:
    """``x`` with every subnormal value of its own type (either part of a complex) replaced by a zero of its sign."""
    if isinstance(x, (list, tuple)):
        return type(x)(flush_subnormals(v) for v in x)
    x = np.asarray(x)
    if etypes.is_complex(etypes.dtype_to_etype(x.dtype)):
        part = np.float32 if x.dtype == np.complex64 else np.float64
        out = np.empty(x.shape, x.dtype)
        out.real, out.imag = _flush_real(x.real.astype(part)), _flush_real(x.imag.astype(part))
        return out
    return _flush_real(x)


def flushed(ev: Callable[..., Any], ctx: EvaluatorContext, *operands: Any) -> Any:
    """``ev`` with subnormal operands read as zero and subnormal results flushed to zero (DAZ + FTZ)."""
    return flush_subnormals(ev(ctx, *flush_subnormals(list(operands))))


def subnormal_outcomes(ev: Callable[..., Any], ctx: EvaluatorContext, *operands: np.ndarray) -> Allowed:
    """Where an operand or the IEEE result is subnormal; the other outcome: flushed to zero (XLA CPU)."""
    result = ev(ctx, *operands)
    return Allowed(subnormal_mask(result, *operands), {"flush": flushed(ev, ctx, *operands)})


def non_finite_parts(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """The results of an op's formulas evaluated without C99 Annex G special-value recovery.

    Part by part: where C99 (the reference) gives a finite value, that value or NaN; where it gives
    an infinity, any NaN or infinity; where it gives NaN (no determined value), any value.
    """
    a, e = np.asarray(actual, np.complex128), np.asarray(expected, np.complex128)
    ok = np.ones(a.shape, bool)
    for pa, pe in ((a.real, e.real), (a.imag, e.imag)):
        same = (pa == pe) | (np.isnan(pa) & np.isnan(pe))
        ok &= same | np.isnan(pa) | np.isnan(pe) | (np.isinf(pa) & np.isinf(pe))
    return ok


def negative_zero(operand: np.ndarray) -> np.ndarray:
    """Where a real operand is -0 (nowhere for a complex one)."""
    if np.iscomplexobj(operand):
        return np.zeros(operand.shape, bool)
    return (operand == 0) & np.signbit(operand)


def any_zero(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """A zero of either sign."""
    with np.errstate(invalid="ignore"):
        return np.asarray(actual).astype(np.float64) == 0


def zero_of_either_sign(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Zero, each part (of a complex value) a zero of either sign."""
    with np.errstate(invalid="ignore"):
        return np.asarray(actual).astype(np.complex128) == 0


def non_finite(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """+inf, -inf or NaN (either part of a complex value)."""
    with np.errstate(invalid="ignore"):
        a = np.asarray(actual).astype(np.complex128)
    return ~np.isfinite(a)


def nan_in_a_part(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """NaN (for a complex value, a NaN in either part)."""
    with np.errstate(invalid="ignore"):
        a = np.asarray(actual).astype(np.complex128)
    return np.isnan(a.real) | np.isnan(a.imag)


def zero_parts_of_either_sign(dtype: Any) -> Predicate:
    """Complex values whose parts are the expected ones within 16 ulps of ``dtype``'s parts, a zero part
    matching a zero of either sign."""
    eps = 16 * float(ml_dtypes.finfo(np.dtype(dtype)).eps)  # ml_dtypes' finfo knows bf16 and the f8 types too

    def accepts(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
        a, e = np.asarray(actual, np.complex128), np.asarray(expected, np.complex128)
        return np.isclose(a.real, e.real, rtol=eps, atol=0) & np.isclose(a.imag, e.imag, rtol=eps, atol=0)
    return accepts


def no_nan_encoding(fn: Callable[..., np.ndarray], *operands: np.ndarray) -> Allowed:
    """The ``no_nan_encoding`` entry: f4e2m1fn operands whose result ``fn`` gives (in float64) is NaN, which
    f4e2m1fn cannot hold; a zero of either sign there. No element for other types."""
    if operands[0].dtype != ml_dtypes.float4_e2m1fn:
        return Allowed(np.zeros(np.broadcast_shapes(*(np.shape(x) for x in operands)), bool), {"either_zero": any_zero})
    with np.errstate(all="ignore"):
        return Allowed(np.isnan(fn(*(x.astype(np.float64) for x in operands))), {"either_zero": any_zero})


def any_value(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Every value of the element type."""
    return np.ones(np.shape(actual), bool)


def none_of(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """No value (an outcome that cannot occur for these operands)."""
    return np.zeros(np.shape(actual), bool)


def nan_of(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    return np.full(shape, np.nan).astype(dtype)


def int_limits(dtype: Any) -> tuple[int, int]:
    info = ml_dtypes.iinfo(dtype)
    return int(info.min), int(info.max)
