"""Mutants: the jax backend with one op's lowering swapped for a plausible value bug, which the conformance
suite must detect (tests/test_mutant_detection.py). Not process-level misbehaviour: that is
tests/support/misbehaving_backends.py.

Each :class:`Mutant` breaks one op. The conformance suite must detect every one of them under
profile ``xla`` (at least one case of the op FAILED), and under profile ``spec`` every one whose
bug lies outside the op's allowed implementation-defined outcomes; ``allowed_by_spec`` names the
allowed outcome the others fall in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from backend.hlo import etypes
from backend.jax_backend import LOWERINGS
from backend.jax_backend.indexing import DN, _moved, index_vector_last, scatter_arguments, scatter_combiner
from backend.rules.linear_algebra import dot_dimension_numbers


class _MutantTable:
    """The jax lowerings, with ``op``'s replaced."""

    def __init__(self, op: str, lower: Callable[..., Any]) -> None:
        self.op, self.lower = op, lower

    def get(self, name: str) -> Any:
        return self.lower if name == self.op else LOWERINGS.get(name)

    def __contains__(self, name: str) -> bool:
        return name == self.op or name in LOWERINGS


@dataclasses.dataclass(frozen=True)
class Mutant:
    name: str
    op: str
    bug: str
    lower: Callable[..., Any]
    allowed_by_spec: str | None = None  # "<id>: <outcome>" when the bug is one of the spec's allowed outcomes

    def backend(self) -> Any:
        from backend.jax_backend.executor import JaxBackend
        return JaxBackend(table=_MutantTable(self.op, self.lower), name=f"mutant:{self.name}")


MUTANTS: list[Mutant] = []


def mutant_backend(name: str) -> Any:
    """The backend of the mutant called ``name``."""
    return next(m for m in MUTANTS if m.name == name).backend()


def base(op: str) -> Callable[..., Any]:
    return LOWERINGS.get(op)


def mutant(name: str, op: str, bug: str, allowed_by_spec: str | None = None) -> Callable[[Callable[..., Any]], Any]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        MUTANTS.append(Mutant(name, op, bug, fn, allowed_by_spec))
        return fn
    return register


def _is(x: Any, kind: Any) -> bool:
    return bool(jnp.issubdtype(x.dtype, kind))


def _int_limits(dtype: Any) -> tuple[int, int]:
    info = jnp.iinfo(dtype)
    return int(info.min), int(info.max)


# -- element-wise binary ----------------------------------------------------------------------------
@mutant("div_by_zero_zero", "Div", "an integer divided by zero gives 0", "division_by_zero: zero (ARM SDIV/UDIV)")
def _div_by_zero_zero(ctx: Any, lhs: Any, rhs: Any) -> Any:
    out = base("Div")(ctx, lhs, rhs)
    return jnp.where(rhs == 0, jnp.zeros_like(out), out) if _is(lhs, jnp.integer) else out


@mutant("div_floor", "Div", "integer division rounds toward negative infinity (Python //)")
def _div_floor(ctx: Any, lhs: Any, rhs: Any) -> Any:
    out = base("Div")(ctx, lhs, rhs)
    if not _is(lhs, jnp.integer):
        return out
    safe = jnp.where(rhs == 0, jnp.ones_like(rhs), rhs)
    return jnp.where(rhs == 0, out, jnp.floor_divide(lhs, safe))


@mutant("rem_divisor_sign", "Rem", "the remainder takes the divisor's sign (Python %)")
def _rem_divisor_sign(ctx: Any, lhs: Any, rhs: Any) -> Any:
    out = base("Rem")(ctx, lhs, rhs)
    fixed = jnp.where((out != 0) & ((out < 0) != (rhs < 0)), out + rhs, out)
    return fixed.astype(out.dtype) if not _is(lhs, jnp.unsignedinteger) else out


@mutant("max_ignores_nan", "Max", "Max returns the other operand when one is NaN",
        "nan: number (IEEE 754-2008 maxNum)")
def _max_ignores_nan(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return jnp.fmax(lhs, rhs) if _is(lhs, jnp.floating) else base("Max")(ctx, lhs, rhs)


@mutant("min_unsigned_as_signed", "Min", "unsigned operands compared as signed")
def _min_unsigned_as_signed(ctx: Any, lhs: Any, rhs: Any) -> Any:
    if not _is(lhs, jnp.unsignedinteger) or lhs.dtype.itemsize > 4:
        return base("Min")(ctx, lhs, rhs)
    signed = jnp.dtype(f"int{8 * lhs.dtype.itemsize}")
    pick = lax.bitcast_convert_type(lhs, signed) < lax.bitcast_convert_type(rhs, signed)
    return jnp.where(pick, lhs, rhs)


@mutant("add_saturates", "Add", "signed integer addition saturates instead of wrapping")
def _add_saturates(ctx: Any, lhs: Any, rhs: Any) -> Any:
    if not _is(lhs, jnp.signedinteger) or lhs.dtype.itemsize > 4:
        return base("Add")(ctx, lhs, rhs)
    lo, hi = _int_limits(lhs.dtype)
    return jnp.clip(lhs.astype(jnp.int64) + rhs.astype(jnp.int64), lo, hi).astype(lhs.dtype)


@mutant("sub_swapped", "Sub", "computes rhs - lhs")
def _sub_swapped(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return base("Sub")(ctx, rhs, lhs)


@mutant("mul_positive_zero", "Mul", "a zero product is always +0.0 (the sign of zero lost)")
def _mul_positive_zero(ctx: Any, lhs: Any, rhs: Any) -> Any:
    out = base("Mul")(ctx, lhs, rhs)
    return jnp.where(out == 0, jnp.zeros_like(out), out) if _is(lhs, jnp.floating) else out


@mutant("pow_int_abs_base", "Pow", "integer Pow loses the base's sign (computes |lhs| ** rhs)")
def _pow_int_abs_base(ctx: Any, lhs: Any, rhs: Any) -> Any:
    if not _is(lhs, jnp.signedinteger):
        return base("Pow")(ctx, lhs, rhs)
    return base("Pow")(ctx, jnp.abs(lhs), rhs)


@mutant("atan2_swapped", "Atan2", "computes atan2(rhs, lhs)")
def _atan2_swapped(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return base("Atan2")(ctx, rhs, lhs)


@mutant("xor_as_or", "Xor", "Xor computed as Or")
def _xor_as_or(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return base("Or")(ctx, lhs, rhs)


@mutant("srl_arithmetic", "ShiftRightLogical", "the logical right shift copies the sign bit (arithmetic)")
def _srl_arithmetic(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return lax.shift_right_arithmetic(lhs, rhs)


@mutant("shl_amount_modulo", "ShiftLeft", "amounts of the bit width or more taken modulo the width (x86)",
        "shift_out_of_range: masked_amount (x86 SHL)")
def _shl_amount_modulo(ctx: Any, lhs: Any, rhs: Any) -> Any:
    bits = etypes.bit_width(ctx.shape.element_type())
    if bits < 8:  # sub-byte types: the amount's value is its pattern read as unsigned
        amount = jnp.where(rhs < 0, rhs.astype(jnp.int32) + (1 << bits), rhs.astype(jnp.int32)) % bits
        return lax.shift_left(lhs, amount.astype(lhs.dtype))
    unsigned = jnp.dtype(f"uint{bits}")
    amount = lax.bitcast_convert_type(rhs, unsigned) % jnp.asarray(bits, unsigned)
    return lax.shift_left(lhs, lax.bitcast_convert_type(amount, lhs.dtype))


@mutant("sra_out_of_range_zero", "ShiftRightArithmetic", "an out-of-range amount gives 0 even for negative lhs")
def _sra_out_of_range_zero(ctx: Any, lhs: Any, rhs: Any) -> Any:
    out = base("ShiftRightArithmetic")(ctx, lhs, rhs)
    bits = 8 * lhs.dtype.itemsize
    wide = lax.bitcast_convert_type(rhs, jnp.dtype(f"uint{bits}"))
    return jnp.where(wide >= bits, jnp.zeros_like(out), out)


@mutant("complex_swapped", "Complex", "Complex(lhs, rhs) puts lhs in the imaginary part")
def _complex_swapped(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return lax.complex(rhs, lhs)


# -- element-wise unary -----------------------------------------------------------------------------
@mutant("abs_int_min_saturates", "Abs", "Abs of the most negative integer saturates to the maximum")
def _abs_int_min_saturates(ctx: Any, operand: Any) -> Any:
    out = base("Abs")(ctx, operand)
    if not _is(operand, jnp.signedinteger):
        return out
    lo, hi = _int_limits(operand.dtype)
    return jnp.where(operand == lo, jnp.asarray(hi, operand.dtype), out)


@mutant("neg_unsigned_zero", "Neg", "negating an unsigned value gives 0 (saturating) instead of wrapping")
def _neg_unsigned_zero(ctx: Any, operand: Any) -> Any:
    out = base("Neg")(ctx, operand)
    return jnp.zeros_like(out) if _is(operand, jnp.unsignedinteger) else out


@mutant("sign_negative_zero", "Sign", "Sign(-0.0) is +0.0")
def _sign_negative_zero(ctx: Any, operand: Any) -> Any:
    out = base("Sign")(ctx, operand)
    return jnp.where(operand == 0, jnp.zeros_like(out), out) if _is(operand, jnp.floating) else out


@mutant("round_half_even", "Round", "Round breaks ties to even instead of away from zero")
def _round_half_even(ctx: Any, operand: Any) -> Any:
    return lax.round(operand, lax.RoundingMethod.TO_NEAREST_EVEN)


@mutant("round_nearest_even_half_away", "RoundNearestEven", "RoundNearestEven breaks ties away from zero")
def _round_nearest_even_half_away(ctx: Any, operand: Any) -> Any:
    return lax.round(operand, lax.RoundingMethod.AWAY_FROM_ZERO)


@mutant("floor_truncates", "Floor", "Floor rounds toward zero")
def _floor_truncates(ctx: Any, operand: Any) -> Any:
    return jnp.trunc(operand).astype(operand.dtype)


@mutant("ceil_floor_plus_one", "Ceil", "Ceil computed as Floor + 1 (wrong on integers)")
def _ceil_floor_plus_one(ctx: Any, operand: Any) -> Any:
    return (lax.floor(operand) + 1).astype(operand.dtype)


@mutant("sqrt_negative_zero", "Sqrt", "Sqrt(-0.0) is +0.0")
def _sqrt_negative_zero(ctx: Any, operand: Any) -> Any:
    out = base("Sqrt")(ctx, operand)
    return jnp.where(operand == 0, jnp.zeros_like(out), out) if _is(operand, jnp.floating) else out


@mutant("cbrt_via_pow", "Cbrt", "Cbrt computed as x ** (1/3): NaN for negative x")
def _cbrt_via_pow(ctx: Any, operand: Any) -> Any:
    if not _is(operand, jnp.floating):
        return base("Cbrt")(ctx, operand)
    return jnp.power(operand, jnp.asarray(1 / 3, operand.dtype))


@mutant("is_finite_nan", "IsFinite", "NaN counts as finite")
def _is_finite_nan(ctx: Any, operand: Any) -> Any:
    return ~jnp.isinf(operand)


@mutant("popcount_sign_extended", "PopulationCount", "signed values counted after sign extension to 64 bits")
def _popcount_sign_extended(ctx: Any, operand: Any) -> Any:
    if not _is(operand, jnp.signedinteger):
        return base("PopulationCount")(ctx, operand)
    return lax.population_count(operand.astype(jnp.int64)).astype(operand.dtype)


@mutant("clz_of_zero", "Clz", "Clz(0) is 0 instead of the bit width")
def _clz_of_zero(ctx: Any, operand: Any) -> Any:
    out = base("Clz")(ctx, operand)
    return jnp.where(operand == 0, jnp.zeros_like(out), out)


@mutant("not_logical_on_ints", "Not", "integer Not computed as logical not (0 -> 1, else 0)")
def _not_logical_on_ints(ctx: Any, operand: Any) -> Any:
    if operand.dtype == jnp.bool_:
        return base("Not")(ctx, operand)
    return (operand == 0).astype(operand.dtype)


@mutant("real_of_complex_imag", "Real", "Real returns the imaginary part")
def _real_of_complex_imag(ctx: Any, operand: Any) -> Any:
    return lax.imag(operand) if _is(operand, jnp.complexfloating) else base("Real")(ctx, operand)


# -- comparison and selection -----------------------------------------------------------------------
@mutant("clamp_min_above_max", "Clamp", "where min > max the result is min (max(min, min(x, max)))")
def _clamp_min_above_max(ctx: Any, min_: Any, operand: Any, max_: Any) -> Any:
    return jnp.maximum(min_, jnp.minimum(operand, max_)).astype(operand.dtype)


@mutant("eq_nan_equal", "Eq", "NaN compares equal to NaN")
def _eq_nan_equal(ctx: Any, lhs: Any, rhs: Any) -> Any:
    out = base("Eq")(ctx, lhs, rhs)
    return out | (jnp.isnan(lhs) & jnp.isnan(rhs)) if _is(lhs, jnp.floating) else out


@mutant("lt_total_order_as_float", "LtTotalOrder", "the total order compares as floats (-0 == +0, NaN unordered)")
def _lt_total_order_as_float(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return lhs < rhs


@mutant("select_uniform_pred_swapped", "Select", "a uniform (scalar) predicate selects on_false for true")
def _select_uniform_pred_swapped(ctx: Any, pred: Any, on_true: Any, on_false: Any) -> Any:
    uniform = jnp.all(pred == pred.reshape(-1)[0]) if pred.size else False
    return jnp.where(uniform, lax.select(pred, on_false, on_true), lax.select(pred, on_true, on_false))


# -- conversion -------------------------------------------------------------------------------------
@mutant("convert_float_to_int_wraps", "ConvertElementType", "float -> int wraps out-of-range values around",
        "float_to_int: any_value (LLVM poison: IREE llvm-cpu)")
def _convert_float_to_int_wraps(ctx: Any, operand: Any) -> Any:
    dst = ctx.shape.numpy_dtype()
    if _is(operand, jnp.floating) and jnp.issubdtype(dst, jnp.integer) and dst.itemsize < 4:
        wide = jnp.nan_to_num(jnp.trunc(operand.astype(jnp.float32)), nan=0.0, posinf=0.0, neginf=0.0)
        low_bits = jnp.clip(wide, -2.0 ** 30, 2.0 ** 30).astype(jnp.int32) & ((1 << 8 * dst.itemsize) - 1)
        return low_bits.astype(dst)
    return base("ConvertElementType")(ctx, operand)


@mutant("convert_bf16_truncates", "ConvertElementType", "f32 -> bf16 truncates the mantissa instead of rounding")
def _convert_bf16_truncates(ctx: Any, operand: Any) -> Any:
    dst = ctx.shape.numpy_dtype()
    if operand.dtype == jnp.float32 and dst == jnp.bfloat16:
        bits = lax.bitcast_convert_type(operand, jnp.uint32) & jnp.uint32(0xFFFF0000)
        return lax.bitcast_convert_type(bits, jnp.float32).astype(jnp.bfloat16)
    return base("ConvertElementType")(ctx, operand)


@mutant("convert_int_to_float_truncates", "ConvertElementType", "s32 -> f32 rounds toward zero, not to nearest even")
def _convert_int_to_float_truncates(ctx: Any, operand: Any) -> Any:
    dst = ctx.shape.numpy_dtype()
    if operand.dtype == jnp.int32 and dst == jnp.float32:
        rounded = operand.astype(jnp.float32)
        back = rounded.astype(jnp.int64)
        wide = operand.astype(jnp.int64)
        too_far = jnp.abs(back) > jnp.abs(wide)
        return jnp.where(too_far, jnp.nextafter(rounded, jnp.zeros_like(rounded)), rounded)
    return base("ConvertElementType")(ctx, operand)


@mutant("bitcast_big_endian", "BitcastConvertType", "size-changing bitcasts use big-endian byte order")
def _bitcast_big_endian(ctx: Any, operand: Any) -> Any:
    dst = ctx.shape.numpy_dtype()
    if operand.ndim < len(ctx.shape.dimensions()):  # narrowing: one element becomes several
        return jnp.flip(base("BitcastConvertType")(ctx, operand), axis=-1)
    if operand.ndim > len(ctx.shape.dimensions()):  # widening
        return base("BitcastConvertType")(ctx, jnp.flip(operand, axis=-1))
    return lax.bitcast_convert_type(operand, dst)


# -- creation and data movement ---------------------------------------------------------------------
@mutant("iota_from_one", "Iota", "counts start at 1")
def _iota_from_one(ctx: Any) -> Any:
    out = base("Iota")(ctx)
    return (out + 1).astype(out.dtype)


@mutant("broadcast_new_dims_last", "Broadcast", "the operand's dimensions are placed first, the new ones last")
def _broadcast_new_dims_last(ctx: Any, operand: Any) -> Any:
    sizes = tuple(ctx.attr("broadcast_sizes"))
    moved = lax.broadcast_in_dim(operand, operand.shape + sizes, tuple(range(operand.ndim)))
    return moved.reshape(sizes + operand.shape)


@mutant("broadcast_in_dim_right_aligned", "BroadcastInDim", "broadcast_dimensions ignored: NumPy right alignment")
def _broadcast_in_dim_right_aligned(ctx: Any, operand: Any) -> Any:
    shape = tuple(ctx.attr("out_dim_size"))
    try:
        np.broadcast_shapes(operand.shape, shape)
    except ValueError:
        return base("BroadcastInDim")(ctx, operand)
    return jnp.broadcast_to(operand, shape)


@mutant("gather_no_clamp", "Gather", "out-of-bounds start indices are not clamped (the slice is filled with 0)")
def _gather_no_clamp(ctx: Any, operand: Any, start_indices: Any) -> Any:
    dn = ctx.attr(DN)
    lax_dn = lax.GatherDimensionNumbers(
        offset_dims=dn.offset_dims, collapsed_slice_dims=dn.collapsed_slice_dims, start_index_map=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=_moved(dn.start_indices_batching_dims, dn.index_vector_dim))
    return lax.gather(operand, index_vector_last(start_indices, dn.index_vector_dim), lax_dn, ctx.attr("slice_sizes"),
                      mode=lax.GatherScatterMode.FILL_OR_DROP, fill_value=0)


@mutant("scatter_add_keeps_last", "Scatter", "integer-add Scatter keeps only one update per index")
def _scatter_add_keeps_last(ctx: Any, operands: list[Any], scatter_indices: Any, updates: list[Any]) -> Any:
    if len(operands) != 1 or scatter_combiner(ctx, operands[0].dtype) != "add":
        return base("Scatter")(ctx, operands, scatter_indices, updates)
    indices, dn = scatter_arguments(ctx, scatter_indices)
    last = lax.scatter(jnp.zeros_like(operands[0]), indices, updates[0], dn, mode=lax.GatherScatterMode.FILL_OR_DROP)
    return operands[0] + last


# -- reductions and linear algebra ------------------------------------------------------------------
@mutant("reduce_ignores_init", "Reduce", "the init value is ignored (the reduction starts from zero)")
def _reduce_ignores_init(ctx: Any, operands: list[Any], init_values: list[Any]) -> Any:
    return base("Reduce")(ctx, operands, [jnp.zeros_like(v) for v in init_values])


@mutant("reduce_window_ignores_init", "ReduceWindow", "the init value is ignored (windows start from zero)")
def _reduce_window_ignores_init(ctx: Any, operands: list[Any], init_values: list[Any]) -> Any:
    return base("ReduceWindow")(ctx, operands, [jnp.zeros_like(v) for v in init_values])


@mutant("dot_drops_preferred_type", "Dot", "preferred_element_type ignored: accumulates in the operand type")
def _dot_drops_preferred_type(ctx: Any, lhs: Any, rhs: Any) -> Any:
    dn = ctx.attrs.get("dimension_numbers") or dot_dimension_numbers(lhs.ndim)
    return lax.dot_general(lhs, rhs, dn.as_lax()).astype(ctx.shape.numpy_dtype())


@mutant("dot_general_first_contracting_only", "DotGeneral", "only the first of several contracting dimensions summed")
def _dot_general_first_contracting_only(ctx: Any, lhs: Any, rhs: Any) -> Any:
    dn = ctx.attr("dimension_numbers")
    for ld, rd in list(zip(dn.lhs_contracting_dimensions, dn.rhs_contracting_dimensions))[1:]:
        lhs = lax.slice_in_dim(lhs, 0, 1, axis=ld)
        rhs = lax.slice_in_dim(rhs, 0, 1, axis=rd)
    return base("DotGeneral")(ctx, lhs, rhs)


@mutant("select_and_scatter_ignores_init", "SelectAndScatter", "the init value is ignored (scattered onto zeros)")
def _select_and_scatter_ignores_init(ctx: Any, operand: Any, source: Any, init_value: Any) -> Any:
    return base("SelectAndScatter")(ctx, operand, source, jnp.zeros_like(init_value))


@mutant("complex_div_conjugated", "Div", "the quotient of complex operands is conjugated (the imaginary part's sign "
        "flipped everywhere, not only on zeros)")
def _complex_div_conjugated(ctx: Any, lhs: Any, rhs: Any) -> Any:
    out = base("Div")(ctx, lhs, rhs)
    return jnp.conj(out) if _is(out, jnp.complexfloating) else out


# -- implementation-defined entries narrowed to closed sets ------------------------------------------
@mutant("zeta_continues_below_one", "Zeta", "x < 1 gives the analytic continuation's value at x = 0, 1/2 - q (away from "
        "the poles), where XLA gives NaN")
def _zeta_continues_below_one(ctx: Any, x: Any, q: Any) -> Any:
    out = base("Zeta")(ctx, x, q)
    pole = (q <= 0) & (q == jnp.floor(q))
    return jnp.where((x < 1) & ~pole, (0.5 - q).astype(out.dtype), out)


@mutant("zeta_nan_below_one", "Zeta", "NaN at every x < 1, the poles included (Cephes' zeta)",
        "outside_series_domain: nan (Cephes, SciPy)")
def _zeta_nan_below_one(ctx: Any, x: Any, q: Any) -> Any:
    out = base("Zeta")(ctx, x, q)
    return jnp.where(x < 1, jnp.full_like(out, jnp.nan), out)


@mutant("sort_operands_permuted_apart", "Sort", "operands 0 and 1 take the order of a sort of the rows, the others "
        "that of a sort of the reversed rows: equal keys move their payloads apart")
def _sort_operands_permuted_apart(ctx: Any, operands: list[Any]) -> Any:
    out = base("Sort")(ctx, operands)
    if len(operands) < 2:
        return out
    d = ctx.attr("dimension") % operands[0].ndim
    other = base("Sort")(ctx, [jnp.flip(x, axis=d) for x in operands])
    return tuple(out[:2]) + tuple(other[2:]) if len(operands) > 2 else (out[0], other[1])


@mutant("ragged_dot_negative_size_as_abs", "RaggedDot", "a negative group size counts as its absolute value")
def _ragged_dot_negative_size_as_abs(ctx: Any, lhs: Any, rhs: Any, group_sizes: Any) -> Any:
    return base("RaggedDot")(ctx, lhs, rhs, jnp.abs(group_sizes))


@mutant("scan_associative_tree", "Scan", "is_associative true: a running float sum as a parallel prefix (a tree of "
        "pairwise sums, lax.associative_scan), the init added last", "reassociation: any_association")
def _scan_associative_tree(ctx: Any, inputs: list[Any], inits: list[Any]) -> Any:
    from backend.reference.higher_order import _scan_folds

    folds = _scan_folds(ctx.attr("to_apply"), len(inputs), len(inits), len(ctx.shape.tuple_shapes()) - len(inits))
    if (ctx.attr("is_associative") is not True or folds != [("add", True)]
            or not _is(inputs[0], jnp.floating)):
        return base("Scan")(ctx, inputs, inits)
    d, reverse = ctx.attr("scan_dimension"), bool(ctx.attr("is_reverse"))
    if inputs[0].shape[d] == 0:
        return base("Scan")(ctx, inputs, inits)
    out = lax.associative_scan(jnp.add, inputs[0], reverse=reverse, axis=d) + jnp.expand_dims(inits[0], d)
    return out, lax.index_in_dim(out, 0 if reverse else out.shape[d] - 1, axis=d, keepdims=False)


# -- rounding ties, stability, determinism, loop counts: the regions generated inputs must reach ------------------
@mutant("convert_float_half_away", "ConvertElementType", "float -> narrower float breaks rounding ties away from zero "
        "(not to even)")
def _convert_float_half_away(ctx: Any, operand: Any) -> Any:
    out = base("ConvertElementType")(ctx, operand)
    narrow = out.dtype in (jnp.float16, jnp.bfloat16, jnp.float32)
    if not (_is(operand, jnp.floating) and narrow) or out.dtype.itemsize >= operand.dtype.itemsize:
        return out
    wide = operand.astype(jnp.float32) if operand.dtype.itemsize < 4 else operand
    back = out.astype(wide.dtype)
    other = jnp.nextafter(out, jnp.where(back < wide, jnp.asarray(jnp.inf, out.dtype), jnp.asarray(-jnp.inf, out.dtype)))
    tie = jnp.isfinite(back) & (back != wide) & (jnp.abs(wide - back) == jnp.abs(other.astype(wide.dtype) - wide))
    return jnp.where(tie & (jnp.abs(other.astype(wide.dtype)) > jnp.abs(back)), other, out)


@mutant("reduce_precision_half_away", "ReducePrecision", "f32 ties of the reduced mantissa round away from zero "
        "(not to even)")
def _reduce_precision_half_away(ctx: Any, operand: Any) -> Any:
    out = base("ReducePrecision")(ctx, operand)
    drop = 23 - ctx.attr("mantissa_bits")
    if operand.dtype != jnp.float32 or not 0 < drop < 23:
        return out
    bits = lax.bitcast_convert_type(operand, jnp.uint32)
    half = jnp.uint32(1 << (drop - 1))
    low = bits & jnp.uint32((1 << drop) - 1)
    away = lax.bitcast_convert_type((bits + half) & ~jnp.uint32((1 << drop) - 1), jnp.float32)
    tie = (low == half) & jnp.isfinite(operand) & jnp.isfinite(away) & (out != 0)
    return jnp.where(tie, lax.reduce_precision(away, exponent_bits=ctx.attr("exponent_bits"),
                                               mantissa_bits=ctx.attr("mantissa_bits")), out)


@mutant("sort_unstable", "Sort", "is_stable ignored: elements the comparator finds equal come out in reverse order")
def _sort_unstable(ctx: Any, operands: list[Any]) -> Any:
    d = ctx.attr("dimension") % operands[0].ndim
    return base("Sort")(ctx, [jnp.flip(x, axis=d) for x in operands])


@mutant("rng_bit_generator_fresh_bits", "RngBitGenerator", "every execution gives fresh random bits and state (not a "
        "function of the initial state)")
def _rng_bit_generator_fresh_bits(ctx: Any, initial_state: Any) -> Any:
    import jax

    state, bits = base("RngBitGenerator")(ctx, initial_state)

    def fresh(state: Any, bits: Any) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng()
        return (rng.integers(0, 2**63, np.shape(state), dtype=np.uint64).astype(state.dtype),
                rng.integers(0, 256, np.shape(bits) + (np.dtype(bits.dtype).itemsize,), dtype=np.uint8)
                .view(bits.dtype).reshape(np.shape(bits)))
    shapes = (jax.ShapeDtypeStruct(state.shape, state.dtype), jax.ShapeDtypeStruct(bits.shape, bits.dtype))
    return tuple(jax.pure_callback(fresh, shapes, state, bits))


@mutant("while_one_more_iteration", "While", "the body runs once more after the condition turns false")
def _while_one_more_iteration(ctx: Any, init: Any) -> Any:
    return ctx.call(ctx.attr("body"), [base("While")(ctx, init)], shared=True)


@mutant("while_body_first", "While", "the body runs before the condition is first checked (a do-while loop)")
def _while_body_first(ctx: Any, init: Any) -> Any:
    return base("While")(ctx, ctx.call(ctx.attr("body"), [init], shared=True))
