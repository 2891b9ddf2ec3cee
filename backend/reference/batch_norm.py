"""Reference evaluators of the batch normalization ops, the seed's formulas term by term in float64
(rounded once to the operand type). ``l`` is the feature dimension; sums run over every other one."""

from __future__ import annotations

import numpy as np

from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, non_finite, zero_of_either_sign
from backend.reference.elementwise import widen


def along_feature(v: np.ndarray, rank: int, feature_index: int) -> np.ndarray:
    """A per-feature vector shaped to broadcast against the operand."""
    shape = [1] * rank
    shape[feature_index] = v.size
    return widen(v).reshape(shape)


def _others(x: np.ndarray, feature_index: int) -> tuple[int, ...]:
    return tuple(d for d in range(x.ndim) if d != feature_index)


def per_feature_sum(x: np.ndarray, feature_index: int) -> np.ndarray:
    return np.sum(x, axis=_others(x, feature_index))


@evaluator("BatchNormTraining")
def batch_norm_training(ctx: EvaluatorContext, operand: np.ndarray, scale: np.ndarray,
                        offset: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fi, eps = ctx.attr("feature_index"), ctx.attr("epsilon")
    x = widen(operand)
    count = x.size // max(1, x.shape[fi])
    with np.errstate(all="ignore"):
        # In float64 a feature near its largest value (-1.8e308) overflows the sum and the squares: the mean is the
        # sum of x / n there, and the deviations are scaled by the power of two of the largest (exact), so that
        # y stays the finite value it is (the variance alone overflows; found by the fuzzer).
        total = per_feature_sum(x, fi)
        mean = np.where(np.isinf(total) & np.isfinite(x).all(axis=_others(x, fi)), per_feature_sum(x / count, fi),
                        total / count)
        centered = x - along_feature(mean, x.ndim, fi)
        largest = np.max(np.abs(centered), axis=_others(x, fi), initial=0)
        exponent = np.where(np.isfinite(largest), np.frexp(np.where(np.isfinite(largest), largest, 0))[1], 0)
        scaled = np.ldexp(centered, -along_feature(exponent, x.ndim, fi).astype(np.int64))
        spread = per_feature_sum(scaled * scaled, fi) / count  # the variance / 2^(2 exponent)
        var = np.ldexp(spread, 2 * exponent)
        normalized = scaled / np.sqrt(along_feature(spread + np.ldexp(float(eps), -2 * exponent), x.ndim, fi))
        y = along_feature(scale, x.ndim, fi) * normalized + along_feature(offset, x.ndim, fi)
    dtype = operand.dtype
    with np.errstate(over="ignore"):  # a variance beyond the type's range rounds to inf, as IEEE 754 rounds it
        return y.astype(dtype), mean.astype(dtype), var.astype(dtype)


@evaluator("BatchNormInference")
def batch_norm_inference(ctx: EvaluatorContext, operand: np.ndarray, scale: np.ndarray, offset: np.ndarray,
                         mean: np.ndarray, variance: np.ndarray) -> np.ndarray:
    fi, eps = ctx.attr("feature_index"), ctx.attr("epsilon")
    x = widen(operand)

    def f(v: np.ndarray) -> np.ndarray:
        return along_feature(v, x.ndim, fi)

    with np.errstate(all="ignore"):
        y = f(scale) * (x - f(mean)) / np.sqrt(f(variance) + eps) + f(offset)
    return y.astype(operand.dtype)


@evaluator("BatchNormGrad")
def batch_norm_grad(ctx: EvaluatorContext, operand: np.ndarray, scale: np.ndarray, batch_mean: np.ndarray,
                    batch_var: np.ndarray, grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    fi, eps = ctx.attr("feature_index"), ctx.attr("epsilon")
    x, dy = widen(operand), widen(grad_output)
    count = x.size // max(1, x.shape[fi])

    def f(v: np.ndarray) -> np.ndarray:
        return along_feature(v, x.ndim, fi)

    with np.errstate(all="ignore"):
        centered = x - f(batch_mean)
        var_eps = f(batch_var) + eps
        c = per_feature_sum(dy * centered / var_eps, fi) / count
        d = per_feature_sum(dy, fi) / count
        grad_operand = f(scale) / np.sqrt(var_eps) * (dy - f(d) - f(c) * centered)
        grad_scale = per_feature_sum(dy * centered / np.sqrt(var_eps), fi)
        grad_offset = per_feature_sum(dy, fi)
    dtype = operand.dtype
    return grad_operand.astype(dtype), grad_scale.astype(dtype), grad_offset.astype(dtype)


def feature_holds_non_finite(x: np.ndarray, feature_index: int) -> np.ndarray:
    """Per feature: whether its slice of ``x`` (a per-feature vector: its element) is NaN or infinite."""
    bad = ~np.isfinite(widen(x))
    return bad if x.ndim == 1 else per_feature_sum(bad, feature_index) > 0


@implementation_defined("BatchNormGrad")
def batch_norm_grad_outcomes(ctx: EvaluatorContext, operand: np.ndarray, scale: np.ndarray, batch_mean: np.ndarray,
                             batch_var: np.ndarray, grad_output: np.ndarray) -> dict[str, Allowed]:
    """``non_finite_feature``: per output, the features whose inputs to that output hold a NaN or an infinity or
    whose result overflows; ``zero_sign``: zero results."""
    fi = ctx.attr("feature_index")
    grad_operand, grad_scale, grad_offset = batch_norm_grad(ctx, operand, scale, batch_mean, batch_var, grad_output)
    with np.errstate(all="ignore"):
        dy = feature_holds_non_finite(grad_output, fi)
        centered = dy | feature_holds_non_finite(operand, fi) | feature_holds_non_finite(batch_mean, fi) \
            | feature_holds_non_finite(batch_var, fi)
        offset_mask = dy | ~np.isfinite(widen(grad_offset))
        scale_mask = centered | ~np.isfinite(widen(grad_scale))
        operand_mask = scale_mask | offset_mask | feature_holds_non_finite(scale, fi) \
            | feature_holds_non_finite(grad_operand, fi)
    masks = (along_feature(operand_mask, operand.ndim, fi), scale_mask, offset_mask)
    return {"non_finite_feature": Allowed(masks, {"non_finite": non_finite}),
            "zero_sign": Allowed(tuple(out == 0 for out in (grad_operand, grad_scale, grad_offset)),
                                 {"either_sign": zero_of_either_sign})}
