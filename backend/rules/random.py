"""Shape rules of the random-number ops: RngUniform, RngNormal and RngBitGenerator."""

from __future__ import annotations

from backend.hlo import etypes
from backend.hlo.attribute_types import RandomAlgorithm
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule

#: State lengths (u64 words) each algorithm takes: key and counter (PHILOX: a 64- or 128-bit counter).
STATE_LENGTHS = {RandomAlgorithm.RNG_THREE_FRY: (2,), RandomAlgorithm.RNG_PHILOX: (2, 3),
                 RandomAlgorithm.RNG_DEFAULT: (2, 3)}

#: RngBitGenerator's output types (XlaBuilder's): the bits come as the unsigned type of the same width.
_BITS_TYPES = {PrimitiveType.S8: PrimitiveType.U8, PrimitiveType.U8: PrimitiveType.U8,
               PrimitiveType.S16: PrimitiveType.U16, PrimitiveType.U16: PrimitiveType.U16,
               PrimitiveType.F16: PrimitiveType.U16, PrimitiveType.BF16: PrimitiveType.U16,
               PrimitiveType.S32: PrimitiveType.U32, PrimitiveType.U32: PrimitiveType.U32,
               PrimitiveType.F32: PrimitiveType.U32, PrimitiveType.S64: PrimitiveType.U64,
               PrimitiveType.U64: PrimitiveType.U64, PrimitiveType.F64: PrimitiveType.U64}


def _distribution(ctx: OpContext, first: str, second: str) -> Shape:
    """RngUniform's and RngNormal's shared rule: two scalar parameters of the output shape's type."""
    for arg in (first, second):
        s = ctx.shape(arg)
        if s.rank() != 0:
            raise ctx.fail("C1", f"'{arg}' must be a scalar, got {s}", arg, **{arg: str(s)})
    shape = ctx.attr("shape")
    if not shape.is_array():
        raise ctx.fail("C3", f"shape must be an array shape, got {shape}", "shape", shape=str(shape))
    param_type = ctx.shape(first).element_type()
    if shape.element_type() != param_type:
        raise ctx.fail("C2", f"shape's element type {etypes.short_name(shape.element_type())} differs from "
                       f"the parameters' {etypes.short_name(param_type)}", "shape", shape=str(shape),
                       **{first: str(ctx.shape(first))})
    return shape


@shape_rule("RngUniform")
def rng_uniform(ctx: OpContext) -> Shape:
    return _distribution(ctx, "a", "b")


@shape_rule("RngNormal")
def rng_normal(ctx: OpContext) -> Shape:
    return _distribution(ctx, "mu", "sigma")


@shape_rule("RngBitGenerator")
def rng_bit_generator(ctx: OpContext) -> Shape:
    algorithm = ctx.attr("algorithm")
    state = ctx.shape("initial_state")
    lengths = STATE_LENGTHS[algorithm]
    if state.rank() != 1 or state.element_type() != PrimitiveType.U64 or state.dimensions()[0] not in lengths:
        wanted = " or ".join(f"u64[{n}]" for n in lengths)
        raise ctx.fail("C1", f"initial_state of {algorithm.name} must be {wanted}, got {state}", "initial_state",
                       initial_state=str(state), algorithm=algorithm.name)
    shape = ctx.attr("shape")
    if not shape.is_array() or shape.element_type() not in _BITS_TYPES:
        raise ctx.fail("C2", f"shape must be an array shape of an 8-, 16-, 32- or 64-bit integer or a 16-, 32- or "
                       f"64-bit floating-point type, got {shape}", "shape", shape=str(shape))
    bits = Shape.array_shape(_BITS_TYPES[shape.element_type()], shape.dimensions())
    return Shape.tuple_shape([state, bits])
