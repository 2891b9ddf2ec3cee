"""Gradients for kernels Pallas cannot differentiate: the XLA op's own VJP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax


def with_xla_gradient(kernel: Callable[..., Any], xla_op: Callable[..., Any]) -> Callable[..., Any]:
    """``kernel`` in the forward pass; the backward pass is ``xla_op``'s VJP on the saved operands.

    ``kernel`` and ``xla_op`` compute the same function of the same operands.
    """

    @jax.custom_vjp
    def run(*operands: Any) -> Any:
        return kernel(*operands)

    def forward(*operands: Any) -> tuple[Any, tuple[Any, ...]]:
        return run(*operands), operands

    def backward(residuals: tuple[Any, ...], cotangent: Any) -> Any:
        return jax.vjp(xla_op, *residuals)[1](cotangent)

    run.defvjp(forward, backward)
    return run
