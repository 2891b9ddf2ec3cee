"""jax lowerings of Cholesky, TriangularSolve, QR, QrDecomposition, ProductOfElementaryHouseholderReflectors,
Eigh, SVD and LU (``jax.lax.linalg``).

jax's Cholesky and Eigh symmetrize their input by default; the documents read one triangle only,
so both are called with ``symmetrize_input=False``. Narrow floats (f16, bf16), which jax's
decompositions do not take, are computed in f32 and rounded once.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from backend.hlo.attribute_types import TriangularSolveOptions_Transpose
from backend.jax_backend import LoweringContext, lowering

_NARROW = (jnp.float16, jnp.bfloat16)


def _working(x: Any) -> Any:
    return x.astype(jnp.float32) if x.dtype in _NARROW else x


@lowering("Cholesky")
def cholesky(ctx: LoweringContext, a: Any) -> Any:
    lower = ctx.attr("lower")
    w = _working(a)
    if lower:
        factor = lax.linalg.cholesky(w, symmetrize_input=False)
    else:  # the upper factor U = L^H of the matrix a's upper triangle describes
        factor = jnp.conj(jnp.swapaxes(lax.linalg.cholesky(jnp.conj(jnp.swapaxes(w, -1, -2)),
                                                           symmetrize_input=False), -1, -2))
    return factor.astype(a.dtype)


@lowering("TriangularSolve")
def triangular_solve(ctx: LoweringContext, a: Any, b: Any) -> Any:
    transpose = ctx.attr("transpose_a")
    x = lax.linalg.triangular_solve(
        _working(a), _working(b), left_side=ctx.attr("left_side"), lower=ctx.attr("lower"),
        transpose_a=transpose != TriangularSolveOptions_Transpose.NO_TRANSPOSE,
        conjugate_a=transpose == TriangularSolveOptions_Transpose.ADJOINT, unit_diagonal=ctx.attr("unit_diagonal"))
    return x.astype(b.dtype)


@lowering("QR")
def qr(ctx: LoweringContext, operand: Any) -> Any:
    q, r = lax.linalg.qr(operand, full_matrices=ctx.attr("full_matrices"))
    return q, r


@lowering("QrDecomposition")
def qr_decomposition(ctx: LoweringContext, operand: Any) -> Any:
    """jax's geqrf (LAPACK's on the CPU; not exported by jax.lax.linalg, which uses it for qr)."""
    from jax._src.lax.linalg import geqrf

    packed, taus = geqrf(operand)
    return packed, taus


@lowering("ProductOfElementaryHouseholderReflectors")
def product_of_householder_reflectors(ctx: LoweringContext, a: Any, taus: Any) -> Any:
    return lax.linalg.householder_product(a, taus)


@lowering("Eigh")
def eigh(ctx: LoweringContext, a: Any) -> Any:
    v, w = lax.linalg.eigh(a, lower=ctx.attr("lower"), symmetrize_input=False,
                           sort_eigenvalues=ctx.attr("sort_eigenvalues"))
    return v, w


@lowering("SVD")
def svd(ctx: LoweringContext, a: Any) -> Any:
    u, d, vh = lax.linalg.svd(a, full_matrices=True, compute_uv=True)
    return u, d, jnp.conj(jnp.swapaxes(vh, -1, -2))


@lowering("LU")
def lu(ctx: LoweringContext, operand: Any) -> Any:
    packed, pivots, permutation = lax.linalg.lu(operand)
    return packed, pivots.astype(jnp.int32), permutation.astype(jnp.int32)
