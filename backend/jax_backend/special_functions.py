"""jax lowerings of XLA's math-library special functions: one ``jax.lax`` function each."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jax import lax

from backend.jax_backend import LoweringContext, lowering

_LAX: dict[str, Callable[..., Any]] = {
    "ErfInv": lax.erf_inv,
    "Lgamma": lax.lgamma,
    "Digamma": lax.digamma,
    "BesselI0e": lax.bessel_i0e,
    "BesselI1e": lax.bessel_i1e,
    "Igamma": lax.igamma,
    "Igammac": lax.igammac,
    "IgammaGradA": lax.igamma_grad_a,
    "RandomGammaGrad": lax.random_gamma_grad,
    "Zeta": lax.zeta,
    "RegularizedIncompleteBeta": lax.betainc,
}


def _lower(fn: Callable[..., Any]) -> Callable[..., Any]:
    def lower(ctx: LoweringContext, *operands: Any) -> Any:
        return fn(*operands)
    return lower


for _name, _fn in _LAX.items():
    lowering(_name)(_lower(_fn))
