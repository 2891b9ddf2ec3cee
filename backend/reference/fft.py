"""Reference evaluator of Fft: numpy.fft in complex128 / float64 over the trailing axes, rounded once
to the result type (IFFT and IRFFT divide by the product of fft_length, as numpy's inverses do)."""

from __future__ import annotations

import numpy as np

from backend.hlo.attribute_types import FftType
from backend.reference import EvaluatorContext, evaluator


@evaluator("Fft")
def fft(ctx: EvaluatorContext, operand: np.ndarray) -> np.ndarray:
    fft_type: FftType = ctx.attr("fft_type")
    lengths = tuple(ctx.attr("fft_length"))
    out_dtype = ctx.shape.numpy_dtype()
    if ctx.shape.element_count() == 0 or operand.size == 0:
        return np.zeros(ctx.shape.dimensions(), out_dtype)
    axes = tuple(range(-len(lengths), 0))
    x = operand.astype(np.complex128 if np.iscomplexobj(operand) else np.float64)
    transform = {FftType.FFT: np.fft.fftn, FftType.IFFT: np.fft.ifftn,
                 FftType.RFFT: np.fft.rfftn, FftType.IRFFT: np.fft.irfftn}[fft_type]
    return np.asarray(transform(x, s=lengths, axes=axes)).astype(out_dtype)
