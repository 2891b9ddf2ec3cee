"""Per corpus program (conformance/programs/), a backend with one deliberately wrong op that the program runs, as a
``module:attribute`` that loads it in any interpreter (``get_backend("tests.support.program_mutants:mlp")``), so
that ``check-program``'s reproduction runs as printed in a fresh one. ``BROKEN`` says which op each one breaks and
where ``check-program`` must find it."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.jax_backend import LOWERINGS
from tests.support.mutant_backends import Mutant, mutant_backend


def _tanh_rational(ctx: Any, x: Any, *rest: Any) -> Any:
    return x / (1 + jnp.abs(x))  # a cheap "tanh": a sigmoid-shaped rational function


def _rsqrt_high(ctx: Any, x: Any) -> Any:
    return lax.rsqrt(x) * 1.01


def _srl_one_more(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return lax.shift_right_logical(lhs, rhs + jnp.ones_like(rhs))


def _fft_scaled(ctx: Any, x: Any) -> Any:
    return LOWERINGS.get("Fft")(ctx, x) * 1.01


def _max_as_min(ctx: Any, lhs: Any, rhs: Any) -> Any:
    return LOWERINGS.get("Min")(ctx, lhs, rhs)


def _permute_identity(ctx: Any, operand: Any) -> Any:
    return operand  # every device keeps its own value


#: Per program: the mutant (a tests.support.mutant_backends name, or a Mutant), the opcode check-program must
#: localise, and the start of the localised op's name (its path: ``while.`` for an op inside a loop body).
BROKEN: dict[str, tuple[str | Mutant, str, str]] = {
    "mlp": ("sub_swapped", "Sub", ""),
    "conv": ("select_uniform_pred_swapped", "Select", ""),
    "attention": ("sub_swapped", "Sub", ""),
    "lstm": (Mutant("tanh_rational", "Tanh", "tanh(x) as x / (1 + |x|)", _tanh_rational), "Tanh", "while."),
    "sampling": ("srl_arithmetic", "ShiftRightLogical", "while."),  # inside the threefry loop
    "linalg": ("iota_from_one", "Iota", ""),
    "transformer_grad": (Mutant("rsqrt_high", "Rsqrt", "rsqrt 1% high", _rsqrt_high), "Rsqrt", ""),
    "random_rbg": (Mutant("srl_one_more", "ShiftRightLogical", "shifts one bit more", _srl_one_more),
                   "ShiftRightLogical", ""),
    "fft_conv": (Mutant("fft_scaled", "Fft", "every transform 1% large", _fft_scaled), "Fft", ""),
    "resnet_block": (Mutant("max_as_min", "Max", "Max computes Min", _max_as_min), "Max", ""),
    "sharded": (Mutant("permute_identity", "CollectivePermute", "no value moves", _permute_identity),
                "CollectivePermute", ""),
}

_LOADED: dict[str, Any] = {}


def broken_backend(program: str) -> Any:
    """The backend with ``program``'s wrong op (one instance per program)."""
    if program not in _LOADED:
        mutant = BROKEN[program][0]
        _LOADED[program] = mutant_backend(mutant) if isinstance(mutant, str) else mutant.backend()
    return _LOADED[program]


def spec(program: str) -> str:
    """The ``get_backend`` name that loads ``program``'s broken backend in any interpreter."""
    return f"{__name__}:{program}"


def __getattr__(name: str) -> Any:  # tests.support.program_mutants:mlp -> the factory of mlp's broken backend
    if name in BROKEN:
        return lambda: broken_backend(name)
    raise AttributeError(name)
