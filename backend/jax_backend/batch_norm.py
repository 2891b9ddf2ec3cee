"""jax lowerings of the batch normalization ops (jax has no batch-norm primitive): the seed's formulas
in jnp arithmetic, narrow floats (f16, bf16) computed in f32 and rounded once to the operand type."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from backend.jax_backend import LoweringContext, lowering


def _compute_dtype(x: Any) -> Any:
    return jnp.float32 if jnp.finfo(x.dtype).bits < 32 else x.dtype


def _along_feature(v: Any, rank: int, feature_index: int, dtype: Any) -> Any:
    shape = [1] * rank
    shape[feature_index] = v.shape[0]
    return v.astype(dtype).reshape(shape)


def _reduce_axes(rank: int, feature_index: int) -> tuple[int, ...]:
    return tuple(d for d in range(rank) if d != feature_index)


@lowering("BatchNormTraining")
def batch_norm_training(ctx: LoweringContext, operand: Any, scale: Any, offset: Any) -> tuple[Any, Any, Any]:
    """The mean as the sum of x / n where the sum of x overflows, and the deviations scaled by the power of two of the largest |x - mean| (exact,
    with ldexp: XLA on CPU divides by a huge value through its reciprocal, which flushes to 0): a feature whose sum
    or squares leave the type (3.4e38 in f32) keeps finite results where the exact ones are finite (it gave NaN for
    the whole feature; found by the fuzzer)."""
    fi, eps, dt = ctx.attr("feature_index"), ctx.attr("epsilon"), _compute_dtype(operand)
    x, axes = operand.astype(dt), _reduce_axes(operand.ndim, fi)
    count = max(1, x.size // max(x.shape[fi], 1))
    total = jnp.sum(x, axis=axes)  # x / n first only where the sum overflows: dividing first rounds each term
    mean = jnp.where(jnp.isinf(total) & jnp.isfinite(x).all(axis=axes), jnp.sum(x / count, axis=axes), total / count)
    centered = x - _along_feature(mean, x.ndim, fi, dt)
    _, exponent = jnp.frexp(jnp.max(jnp.abs(centered), axis=axes, keepdims=True, initial=0))
    exponent = jnp.where(jnp.isfinite(centered).all(axis=axes, keepdims=True), exponent, 0)
    scaled = jnp.ldexp(centered, -exponent)  # |scaled| < 1
    spread = jnp.mean(scaled * scaled, axis=axes, keepdims=True)  # the variance / 2^(2 exponent)
    normalized = scaled / jnp.sqrt(spread + jnp.ldexp(jnp.asarray(eps, dt), -2 * exponent))
    var = jnp.ldexp(spread, 2 * exponent)  # inf where the variance leaves the type, as the exact one rounded
    y = _along_feature(scale, x.ndim, fi, dt) * normalized + _along_feature(offset, x.ndim, fi, dt)
    return y.astype(operand.dtype), mean.astype(operand.dtype), jnp.squeeze(var, axes).astype(operand.dtype)


@lowering("BatchNormInference")
def batch_norm_inference(ctx: LoweringContext, operand: Any, scale: Any, offset: Any, mean: Any, variance: Any) -> Any:
    fi, eps, dt = ctx.attr("feature_index"), ctx.attr("epsilon"), _compute_dtype(operand)
    x = operand.astype(dt)

    def f(v: Any) -> Any:
        return _along_feature(v, x.ndim, fi, dt)

    return (f(scale) * (x - f(mean)) / jnp.sqrt(f(variance) + eps) + f(offset)).astype(operand.dtype)


@lowering("BatchNormGrad")
def batch_norm_grad(ctx: LoweringContext, operand: Any, scale: Any, batch_mean: Any, batch_var: Any,
                    grad_output: Any) -> tuple[Any, Any, Any]:
    fi, eps, dt = ctx.attr("feature_index"), ctx.attr("epsilon"), _compute_dtype(operand)
    x, dy, axes = operand.astype(dt), grad_output.astype(dt), _reduce_axes(operand.ndim, fi)

    def f(v: Any) -> Any:
        return _along_feature(v, x.ndim, fi, dt)

    centered = x - f(batch_mean)
    var_eps = f(batch_var) + eps
    c = jnp.mean(dy * centered / var_eps, axis=axes)
    d = jnp.mean(dy, axis=axes)
    grad_operand = f(scale) / jnp.sqrt(var_eps) * (dy - f(d) - f(c) * centered)
    grad_scale = jnp.sum(dy * centered / jnp.sqrt(var_eps), axis=axes)
    grad_offset = jnp.sum(dy, axis=axes)
    return tuple(v.astype(operand.dtype) for v in (grad_operand, grad_scale, grad_offset))
