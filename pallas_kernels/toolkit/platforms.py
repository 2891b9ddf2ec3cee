"""Choosing a kernel variant per platform at lowering time.

One jitted function must lower for TPU (Mosaic), CUDA (Triton) and CPU
(Pallas interpret mode).  :func:`dispatch_by_platform` wraps
``jax.lax.platform_dependent``: when a module is lowered for one platform only
that platform's branch is lowered, so a TPU lowering contains only the Mosaic
kernel and a CUDA lowering only the Triton kernel.

Compiler-parameter classes moved between JAX versions (``TPUCompilerParams`` ->
``CompilerParams``, ``TritonCompilerParams`` -> ``CompilerParams``), so they
are feature-detected here and nowhere else.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import jax
from jax.experimental.pallas import tpu as pltpu

try:  # Triton is an optional part of jaxlib on some installs.
    from jax.experimental.pallas import triton as pltriton
except ImportError:  # pragma: no cover - depends on the jaxlib build
    pltriton = None

InterpretedVariant = Literal["gpu", "tpu"]
"""Which accelerator variant runs, in interpret mode, when lowering for CPU."""

_state = threading.local()


def interpreted_variant() -> InterpretedVariant:
    """The variant that the CPU branch runs in interpret mode (default "gpu")."""
    return getattr(_state, "variant", "gpu")


@contextlib.contextmanager
def interpret_as(variant: InterpretedVariant) -> Iterator[None]:
    """Run the ``variant`` kernel (in interpret mode) when lowering for CPU.

    Read at trace time: wrap the *tracing* of the function (a fresh
    ``jax.jit``), not only its call.  The TPU variant then runs under
    ``pltpu.InterpretParams()``, which models TPU memory semantics.
    """
    if variant not in ("gpu", "tpu"):
        raise ValueError(f"unknown variant {variant!r}; expected 'gpu' or 'tpu'")
    previous = interpreted_variant()
    _state.variant = variant
    try:
        yield
    finally:
        _state.variant = previous


def tpu_interpret_params() -> Any:
    """Interpret-mode parameters that model TPU semantics (NaN-poisoned memory)."""
    try:
        return pltpu.InterpretParams(uninitialized_memory="nan")
    except TypeError:  # pragma: no cover - older field set
        return pltpu.InterpretParams()


KernelVariant = Callable[..., Any]
"""A kernel variant: ``variant(*operands, interpret=<False|True|params>)``."""


def dispatch_by_platform(
    *operands: Any,
    tpu: KernelVariant,
    gpu: KernelVariant,
) -> Any:
    """Run ``tpu`` on TPU, ``gpu`` on CUDA and an interpreted variant elsewhere.

    Each variant is called as ``variant(*operands, interpret=...)`` with
    ``interpret=False`` on its own platform.  On any other platform (CPU) the
    variant chosen by :func:`interpret_as` runs with ``interpret=True`` (GPU
    variant) or ``interpret=tpu_interpret_params()`` (TPU variant).
    """

    def on_tpu(*args: Any) -> Any:
        return tpu(*args, interpret=False)

    def on_gpu(*args: Any) -> Any:
        return gpu(*args, interpret=False)

    if interpreted_variant() == "tpu":

        def on_cpu(*args: Any) -> Any:
            return tpu(*args, interpret=tpu_interpret_params())
    else:

        def on_cpu(*args: Any) -> Any:
            return gpu(*args, interpret=True)

    return jax.lax.platform_dependent(
        *operands, tpu=on_tpu, cuda=on_gpu, default=on_cpu
    )


def _first_attribute(module: Any, *names: str) -> Any:
    """``module.<name>`` for the first of ``names`` this JAX version has."""
    for name in names:
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"{module.__name__} has none of {names}")


def tpu_compiler_params(
    dimension_semantics: Sequence[str],
    vmem_limit_bytes: int | None = None,
) -> Any:
    """Mosaic TPU compiler parameters, across JAX versions."""
    params_class = _first_attribute(pltpu, "CompilerParams", "TPUCompilerParams")
    return params_class(
        dimension_semantics=tuple(dimension_semantics),
        vmem_limit_bytes=vmem_limit_bytes,
    )


def triton_compiler_params(num_warps: int, num_stages: int) -> Any:
    """Triton compiler parameters, across JAX versions.

    Passing them explicitly makes ``pallas_call`` lower through Triton on every
    JAX version (0.10 defaults GPU ``pallas_call`` to Mosaic GPU).
    """
    if pltriton is None:  # pragma: no cover - depends on the jaxlib build
        raise RuntimeError("this jaxlib has no Pallas Triton support")
    params_class = _first_attribute(pltriton, "CompilerParams", "TritonCompilerParams")
    return params_class(num_warps=num_warps, num_stages=num_stages)
