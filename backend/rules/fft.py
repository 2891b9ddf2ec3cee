"""Shape rule of Fft: FFT/IFFT complex to complex, RFFT real to complex, IRFFT complex to real,
over the 1 to 3 trailing dimensions that ``fft_length`` names."""

from __future__ import annotations

from backend.hlo import etypes
from backend.hlo.attribute_types import FftType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule
from backend.rules.elementwise import _COMPLEX_OF, _REAL_OF


def rfft_bins(n: int) -> int:
    """The size RFFT keeps of a real axis of length n: n // 2 + 1 (0 for an empty axis)."""
    return n // 2 + 1 if n else 0


def fft_shapes(fft_type: FftType, fft_length: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The trailing dimensions of the operand and of the result."""
    if fft_type == FftType.RFFT:
        return fft_length, fft_length[:-1] + (rfft_bins(fft_length[-1]),)
    if fft_type == FftType.IRFFT:
        return fft_length[:-1] + (rfft_bins(fft_length[-1]),), fft_length
    return fft_length, fft_length


@shape_rule("Fft")
def fft(ctx: OpContext) -> Shape:
    operand = ctx.shape("operand")
    fft_type: FftType = ctx.attr("fft_type")
    fft_length: tuple[int, ...] = ctx.attr("fft_length")
    etype = operand.element_type()
    if not 1 <= len(fft_length) <= 3:
        raise ctx.fail("C3", f"fft_length needs 1 to 3 entries, got {list(fft_length)}", "fft_length",
                       fft_length=list(fft_length))
    if any(n < 0 for n in fft_length):
        raise ctx.fail("C3", f"fft_length entries must be >= 0, got {list(fft_length)}", "fft_length",
                       fft_length=list(fft_length))
    if len(fft_length) > operand.rank():
        raise ctx.fail("C4", f"fft_length {list(fft_length)} has more entries than the operand {operand} has "
                       "dimensions", "fft_length", fft_length=list(fft_length), operand=str(operand))
    wants_real = fft_type == FftType.RFFT
    if etypes.is_complex(etype) == wants_real:
        kind = "a real (f32, f64)" if wants_real else "a complex (c64, c128)"
        raise ctx.fail("C5", f"{fft_type.name} takes {kind} operand, got {operand}", "operand",
                       operand=str(operand), fft_type=fft_type.name)
    operand_tail, result_tail = fft_shapes(fft_type, fft_length)
    dims = tuple(operand.dimensions())
    lead = dims[:len(dims) - len(fft_length)]
    if dims[len(lead):] != operand_tail:
        raise ctx.fail("C6", f"{fft_type.name} with fft_length {list(fft_length)} needs the operand's trailing "
                       f"dimensions to be {list(operand_tail)}, got {operand}", "operand",
                       operand=str(operand), fft_length=list(fft_length), fft_type=fft_type.name)
    if fft_type == FftType.RFFT:
        etype = _COMPLEX_OF[etype]
    elif fft_type == FftType.IRFFT:
        etype = _REAL_OF[etype]
    return Shape.array_shape(etype, lead + result_tail)
