"""Shape rules of the conversion ops: ConvertElementType, BitcastConvertType, ReducePrecision."""

from __future__ import annotations

from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule


def _new_element_type(ctx: OpContext, constraint: str, allowed: tuple[PrimitiveType, ...]) -> PrimitiveType:
    """The ``new_element_type`` attribute, checked against ``allowed`` (array types)."""
    new = ctx.attr("new_element_type")
    if new not in allowed:
        name = etypes.short_name(new) if new in etypes.ARRAY_TYPES or new == PrimitiveType.TOKEN else new.name
        raise ctx.fail(constraint, f"new_element_type must be an array element type"
                       f"{'' if PrimitiveType.PRED in allowed else ' other than pred'}, got {name}",
                       "new_element_type", new_element_type=name)
    return new


@shape_rule("ConvertElementType")
def convert_element_type(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    new = _new_element_type(ctx, "C2", etypes.ARRAY_TYPES)
    return Shape.array_shape(new, operand.dimensions(), dynamic_dimensions=operand.dynamic_dimensions())


@shape_rule("BitcastConvertType")
def bitcast_convert_type(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    old = operand.element_type()
    new = _new_element_type(ctx, "C2", tuple(t for t in etypes.ARRAY_TYPES if t != PrimitiveType.PRED))
    if etypes.is_complex(old) != etypes.is_complex(new):
        raise ctx.fail("C3", f"cannot bitcast between complex and real types ({etypes.short_name(old)} -> "
                       f"{etypes.short_name(new)})", "new_element_type", operand=str(operand),
                       new_element_type=etypes.short_name(new))
    in_bits, out_bits = etypes.bit_width(old), etypes.bit_width(new)
    dims, dynamic = operand.dimensions(), operand.dynamic_dimensions()
    if in_bits > out_bits:
        dims, dynamic = dims + (in_bits // out_bits,), dynamic + (False,)
    elif in_bits < out_bits:
        ratio = out_bits // in_bits
        if not dims or dims[-1] != ratio:
            raise ctx.fail("C4", f"bitcasting {operand} to the wider {etypes.short_name(new)} needs a last "
                           f"dimension of size {ratio} (= {out_bits} / {in_bits} bits)", "operand",
                           operand=str(operand), ratio=ratio)
        dims, dynamic = dims[:-1], dynamic[:-1]
    return Shape.array_shape(new, dims, dynamic_dimensions=dynamic)


#: The largest value of an s32 attribute.
_S32_MAX = 2**31 - 1


@shape_rule("ReducePrecision")
def reduce_precision(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    exponent_bits, mantissa_bits = ctx.attr("exponent_bits"), ctx.attr("mantissa_bits")
    if not 1 <= exponent_bits <= _S32_MAX:
        raise ctx.fail("C2", f"exponent_bits must be in [1, 2^31 - 1] (an s32 attribute), got {exponent_bits}",
                       "exponent_bits", exponent_bits=exponent_bits)
    if not 0 <= mantissa_bits <= _S32_MAX:
        raise ctx.fail("C3", f"mantissa_bits must be in [0, 2^31 - 1] (an s32 attribute), got {mantissa_bits}",
                       "mantissa_bits", mantissa_bits=mantissa_bits)
    return operand
