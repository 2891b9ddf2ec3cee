"""Reference evaluators of Cholesky, TriangularSolve, QR, QrDecomposition,
ProductOfElementaryHouseholderReflectors, Eigh, SVD and LU (NumPy, in f64 / c128).

Every op works on a batch of matrices (all dimensions but the two minor ones are batch dimensions)
and reads only what the documents say it reads: Cholesky, Eigh and TriangularSolve read one
triangle of ``a`` (and TriangularSolve with ``unit_diagonal`` not its diagonal).

The factors of QR, Eigh, SVD and LU are not unique (column signs or phases, the order of equal
eigenvalues, pivots between equal magnitudes), so the implementation-defined functions below accept
any result that satisfies the decomposition's defining identity within a bound on its backward
error; see ``identity_bound``.

A matrix of the batch that holds a NaN or an infinity (for Eigh: in what it reads) has no factors:
the identities have no meaning there, the documents say nothing, and LAPACK promises nothing about
how NaN propagates. The reference gives NaN in every element of such a matrix's QR, QrDecomposition,
Eigh and SVD results (LU eliminates it in IEEE arithmetic), factors the other matrices as usual, and
the ``non_finite_input`` entries allow any values there (keeping the structure the op promises).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from backend.hlo.attribute_types import TriangularSolveOptions_Transpose
from backend.reference import EvaluatorContext, evaluator, implementation_defined
from backend.reference.allowed import Allowed, Holds, any_value, zero_of_either_sign, zero_parts_of_either_sign
from backend.reference.elementwise import widen

Transpose = TriangularSolveOptions_Transpose

# A backward-stable factorization of an m x n matrix A gives factors that reproduce A up to
# ||dA|| <= c * max(m, n) * u * ||A|| (Higham, Accuracy and Stability of Numerical Algorithms:
# Thm 19.4 for Householder QR, 9.3 for LU with ||L|| ||U|| in place of ||A||, 10.3 for Cholesky;
# Jacobi and QR-iteration eigen- and singular-value solvers likewise). The constant c is taken as 32.
IDENTITY_CONSTANT = 32


def unit_roundoff(dtype: Any) -> float:
    """Half the machine epsilon of a float or complex type (of its parts)."""
    part = np.dtype(dtype).type(0).real.dtype
    return float(ml_dtypes.finfo(part).eps) / 2


def identity_bound(dtype: Any, m: int, n: int) -> float:
    """The relative backward-error bound of a factorization of an m x n matrix of ``dtype``."""
    return IDENTITY_CONSTANT * max(m, n, 1) * unit_roundoff(dtype)


def _swap(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def adjoint(x: np.ndarray) -> np.ndarray:
    return np.conj(_swap(x))


def hermitian_from_triangle(a: np.ndarray, lower: bool) -> np.ndarray:
    """The Hermitian matrix that ``a``'s lower (upper) triangle describes: the other triangle is the
    conjugate mirror, the diagonal's imaginary part is ignored (LAPACK's reading)."""
    tri = np.tril(a, -1) if lower else np.triu(a, 1)
    h = tri + adjoint(tri)
    diag = np.real(np.diagonal(a, axis1=-2, axis2=-1))
    n = a.shape[-1]
    h[..., range(n), range(n)] = diag  # set, not diag * I: an infinite diagonal must not put NaN beside it
    return h


def _frobenius(x: np.ndarray) -> np.ndarray:
    """||x||_F of each matrix of a batch (shape: the batch shape)."""
    with np.errstate(all="ignore"):
        return np.sqrt(np.sum(np.abs(x) ** 2, axis=(-2, -1)))


def unit_scale(x: np.ndarray) -> np.ndarray:
    """Per matrix of a batch, the power of two that brings its largest magnitude into [0.5, 1) (1 for a zero or
    non-finite matrix), shaped to multiply the batch. Scaling by it is exact, and identities checked on the scaled
    matrices cannot overflow where the values are near the type's largest one."""
    with np.errstate(all="ignore"):
        top = np.max(np.abs(x), axis=(-2, -1), initial=0.0)
        usable = np.isfinite(top) & (top > 0)
        exponent = np.frexp(np.where(usable, top, 1.0))[1] * usable
    return np.asarray(np.ldexp(1.0, -exponent))[..., None, None]


def _batch_ok(residual: np.ndarray, scale: np.ndarray, bound: float) -> np.ndarray:
    """Per matrix of a batch: every element of ``residual`` is within ``bound * scale`` (NaN: not)."""
    with np.errstate(all="ignore"):
        worst = np.max(np.abs(residual), axis=(-2, -1), initial=0.0)
        return worst <= bound * np.maximum(scale, np.finfo(np.float64).tiny)


def per_matrix_masks(per_matrix: np.ndarray, matrix_outputs: Sequence[bool]) -> tuple[np.ndarray, ...]:
    """Per-matrix flags (shape: the batch shape) shaped to broadcast over each output (matrix outputs have two
    minor dimensions, vectors one)."""
    return tuple(per_matrix[..., None, None] if is_matrix else per_matrix[..., None] for is_matrix in matrix_outputs)


def _per_matrix(ok: np.ndarray, outputs: Sequence[np.ndarray], matrix_outputs: Sequence[bool]) -> tuple[np.ndarray,
                ...]:
    """Per-matrix verdicts spread over each output."""
    return tuple(np.broadcast_to(m, np.shape(x)) for m, x in zip(per_matrix_masks(ok, matrix_outputs), outputs))


def non_finite_matrices(a: np.ndarray) -> np.ndarray:
    """Per matrix of a batch (shape: the batch shape): whether it holds a NaN or an infinity."""
    return ~np.all(np.isfinite(a), axis=(-2, -1))


def finite_part(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(``a`` with its non-finite matrices replaced by zeros, for LAPACK; which matrices those were)."""
    bad = non_finite_matrices(a)
    return np.where(bad[..., None, None], 0, a), bad


def nan_where(bad: np.ndarray, outputs: Sequence[np.ndarray], matrix_outputs: Sequence[bool]) -> tuple[np.ndarray, ...]:
    """``outputs`` with every element of the matrices ``bad`` marks set to NaN (complex: NaN parts)."""
    return tuple(np.where(m, complex(np.nan, np.nan) if np.iscomplexobj(x) else np.nan, x)
                 for x, m in zip(outputs, per_matrix_masks(bad, matrix_outputs)))


def leading_phase(columns: np.ndarray) -> np.ndarray:
    """Per column of each matrix: the unit number (sign or phase) of its first component that is not
    negligible (magnitude above 1e-8 of the column's largest); 1 for a zero column."""
    mags = np.abs(columns)
    significant = mags > 1e-8 * np.max(mags, axis=-2, keepdims=True, initial=0.0)
    first = np.argmax(significant, axis=-2)[..., None, :]
    lead = np.take_along_axis(columns, first, axis=-2)[..., 0, :]
    with np.errstate(all="ignore"):
        phase = lead / np.abs(lead)
    return np.where(np.abs(lead) > 0, phase, 1)


# --- Cholesky ---------------------------------------------------------------------------------

def cholesky_factor(a: np.ndarray, lower: bool) -> tuple[np.ndarray, np.ndarray]:
    """(factor, positive_definite per matrix), in the working precision; a matrix that is not
    positive definite (or has a non-finite element in the triangle read) gets NaN in its triangle."""
    h = hermitian_from_triangle(widen(a), lower)
    batch = h.shape[:-2]
    n = h.shape[-1]
    factor = np.zeros(h.shape, h.dtype)
    ok = np.ones(batch, bool)
    tri_mask = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    for idx in np.ndindex(*batch):
        m = h[idx]
        try:
            if not np.all(np.isfinite(m)):
                raise np.linalg.LinAlgError("non-finite")
            low = np.linalg.cholesky(m)
            factor[idx] = np.where(tri_mask, low if lower else adjoint(low), 0)  # +0 outside (conj gives -0i)
        except np.linalg.LinAlgError:
            ok[idx] = False
            factor[idx] = np.where(tri_mask, np.nan, 0)
    return factor, ok


@evaluator("Cholesky")
def cholesky(ctx: EvaluatorContext, a: np.ndarray) -> np.ndarray:
    factor, _ = cholesky_factor(a, ctx.attr("lower"))
    return factor.astype(ctx.shape.numpy_dtype())


def other_triangle(shape: tuple[int, ...], lower: bool) -> np.ndarray:
    """The elements strictly above (lower) or below (not lower) the diagonal of each matrix."""
    n, m = shape[-2], shape[-1]
    ones = np.ones((n, m), bool)
    return np.broadcast_to(np.triu(ones, 1) if lower else np.tril(ones, -1), shape)


@implementation_defined("Cholesky")
def cholesky_outcomes(ctx: EvaluatorContext, a: np.ndarray) -> dict[str, Allowed]:
    lower = ctx.attr("lower")
    _, ok = cholesky_factor(a, lower)
    diagonal = np.broadcast_to(np.eye(a.shape[-1], dtype=bool), a.shape) & np.iscomplexobj(a)
    return {"diagonal_zero_sign": Allowed(diagonal, {"either_sign": zero_parts_of_either_sign(a.real.dtype)}),
            "other_triangle": Allowed(other_triangle(a.shape, lower), {"any_value": any_value,
                                                                         "zero_of_either_sign": zero_of_either_sign}),
            "not_positive_definite": Allowed(np.broadcast_to(~ok[..., None, None], a.shape),
                                             {"any_value": any_value})}


# --- TriangularSolve --------------------------------------------------------------------------

def triangle_of(a: np.ndarray, lower: bool, unit_diagonal: bool) -> np.ndarray:
    """The triangular matrix ``a`` describes: its lower (upper) triangle, ones on the diagonal if
    ``unit_diagonal``; the other elements are not read."""
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:  # set, not t * (1 - I) + I: a non-finite diagonal is not read, so it must not give NaN
        t = np.where(np.eye(a.shape[-1], dtype=bool), np.ones((), t.dtype), t)
    return t


def apply_transpose(t: np.ndarray, transpose: Transpose) -> np.ndarray:
    if transpose == Transpose.TRANSPOSE:
        return _swap(t)
    if transpose == Transpose.ADJOINT:
        return adjoint(t)
    return t


def substitute(m: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """x with m x = b for triangular m (lower: forward substitution, else backward), row by row in
    IEEE arithmetic: a zero on the diagonal gives infinities or NaNs, never an exception."""
    n = m.shape[-1]
    x = np.zeros(b.shape, np.result_type(m, b))
    rows = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in rows:
            known = slice(0, i) if lower else slice(i + 1, n)
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", m[..., i, known], x[..., known, :])
            x[..., i, :] = acc / m[..., i, i][..., None]
    return x


def solve_triangular(a: np.ndarray, b: np.ndarray, left_side: bool, lower: bool, unit_diagonal: bool,
                     transpose: Transpose) -> np.ndarray:
    """op(a) x = b (left_side) or x op(a) = b, in the working precision of ``a`` and ``b``."""
    op_a = apply_transpose(triangle_of(a, lower, unit_diagonal), transpose)
    op_lower = lower == (transpose == Transpose.NO_TRANSPOSE)
    if left_side:
        return substitute(op_a, b, op_lower)
    # x op(a) = b  <=>  op(a)^T x^T = b^T, and op(a)^T is triangular the other way round
    return _swap(substitute(_swap(op_a), _swap(b), not op_lower))


@evaluator("TriangularSolve")
def triangular_solve(ctx: EvaluatorContext, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x = solve_triangular(widen(a), widen(b), ctx.attr("left_side"), ctx.attr("lower"), ctx.attr("unit_diagonal"),
                         ctx.attr("transpose_a"))
    with np.errstate(all="ignore"):
        return x.astype(ctx.shape.numpy_dtype())


def reached_by_non_finite(a: np.ndarray, b: np.ndarray, *flags: Any) -> np.ndarray:
    """The elements of x that a NaN or an infinity of the triangle read or of b reaches, or an overflow
    (a zero diagonal, say) makes non-finite: the substitution run with every non-finite input made NaN."""
    with np.errstate(all="ignore"):
        x = solve_triangular(np.where(np.isfinite(a), a, np.nan), np.where(np.isfinite(b), b, np.nan), *flags)
    return ~np.isfinite(x)


@implementation_defined("TriangularSolve")
def triangular_solve_outcomes(ctx: EvaluatorContext, a: np.ndarray, b: np.ndarray) -> dict[str, Allowed]:
    flags = (ctx.attr("left_side"), ctx.attr("lower"), ctx.attr("unit_diagonal"), ctx.attr("transpose_a"))
    return {"non_finite_input": Allowed(reached_by_non_finite(widen(a), widen(b), *flags), {"any_values": any_value})}


# --- QR ----------------------------------------------------------------------------------------

@evaluator("QR")
def qr(ctx: EvaluatorContext, operand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's Householder QR, then the reference's choice among the factors: R's diagonal real and
    >= 0 (column k of Q and row k of R scaled by a unit number and its conjugate)."""
    a, bad = finite_part(widen(operand))
    q, r = np.linalg.qr(a, mode="complete" if ctx.attr("full_matrices") else "reduced")
    k = min(operand.shape[-2], operand.shape[-1])
    diag = np.diagonal(r, axis1=-2, axis2=-1)[..., :k]
    with np.errstate(all="ignore"):
        phase = np.where(diag != 0, diag / np.abs(diag), 1)
    q = q.copy()
    q[..., :, :k] *= phase[..., None, :]
    r = np.triu(r[..., :, :] * np.concatenate([np.conj(phase), np.ones(r.shape[:-2] + (r.shape[-2] - k,))],
                                             axis=-1)[..., :, None])
    q, r = nan_where(bad, (q + 0.0, r + 0.0), (True, True))
    r = np.triu(r)  # NaN on and above the diagonal of a non-finite matrix's r: R stays upper triangular
    q_shape, r_shape = ctx.shape.tuple_shapes()
    return q.astype(q_shape.numpy_dtype()), r.astype(r_shape.numpy_dtype())  # + 0.0 above: -0 parts become +0


def qr_holds(a: np.ndarray) -> Callable[[Sequence[np.ndarray]], tuple[np.ndarray, ...]]:
    """Q R = A with Q's columns orthonormal and R upper triangular (exact zeros below the diagonal)."""
    m, n = a.shape[-2], a.shape[-1]
    bound = identity_bound(a.dtype, m, n)
    wide = widen(a)

    def holds(outputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        q, r = widen(np.asarray(outputs[0])), widen(np.asarray(outputs[1]))
        k = q.shape[-1]
        ok = _batch_ok(q @ r - wide, _frobenius(wide), bound)
        ok &= _batch_ok(adjoint(q) @ q - np.eye(k), np.ones(ok.shape), bound)
        ok &= np.all(np.tril(r, -1) == 0, axis=(-2, -1)) & ~non_finite_matrices(wide)  # inf <= inf x bound
        return _per_matrix(ok, outputs, (True, True))
    return holds



# --- QrDecomposition and ProductOfElementaryHouseholderReflectors -------------------------------------
# LAPACK's Householder form (geqrf / orgqr): H_i = I - tau_i v_i v_i^H with v_i 0 above position i,
# 1 at i, and the column's elements below the diagonal under it; A = Q R with Q = H_0 H_1 ... H_{k-1}.

def _norm(x: np.ndarray) -> float:
    """||x||_2 scaled by its largest magnitude, as LAPACK's ?nrm2: no overflow for |x_i| near the type's maximum."""
    scale = float(np.max(np.abs(x), initial=0.0))
    if scale == 0 or not math.isfinite(scale):
        return scale if not np.isnan(x).any() else math.nan
    return scale * float(np.sqrt(np.sum(np.abs(x / scale) ** 2)))


def householder_vector(column: np.ndarray) -> tuple[complex, complex, np.ndarray]:
    """LAPACK's ?larfg on ``column`` = (alpha, x): (beta, tau, v below 1) with H^H (alpha, x) = (beta, 0),
    beta real. No reflection (tau = 0) when x = 0 and alpha is real; else beta = -copysign(||(alpha,
    x)||, Re alpha) (so alpha = +0 gives beta < 0), tau = (beta - alpha) / beta, v = x / (alpha - beta)."""
    alpha, x = column[0], column[1:]
    xnorm = _norm(x)
    if xnorm == 0 and np.imag(alpha) == 0:
        return alpha, 0, np.zeros_like(x)
    beta = -math.copysign(math.hypot(abs(alpha), xnorm), float(np.real(alpha)))
    return beta, (beta - alpha) / beta, x / (alpha - beta)


def householder_qr(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's geqrf on each matrix of the batch: (R above and on the diagonal with the v_i below it, taus)."""
    out = a.copy()
    *batch, m, n = a.shape
    k = min(m, n)
    taus = np.zeros((*batch, k), a.dtype)
    for idx in np.ndindex(*batch):
        x = out[idx]
        for i in range(k):
            beta, tau, v = householder_vector(x[i:, i])
            full = np.concatenate([[1], v])
            # apply H_i^H = I - conj(tau) v v^H to the trailing columns
            x[i:, i + 1:] -= np.conj(tau) * np.outer(full, np.conj(full) @ x[i:, i + 1:])
            x[i, i], x[i + 1:, i], taus[idx + (i,)] = beta, v, tau
    return out, taus


def householder_product(a: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """LAPACK's orgqr / ungqr: the first n columns of H_0 H_1 ... H_{k-1} (m x n, m >= n), the v_i read
    from below the diagonal of a's first k columns."""
    *batch, m, n = a.shape
    k = taus.shape[-1]
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    for idx in np.ndindex(*batch):
        x = q[idx]
        for i in range(k - 1, -1, -1):  # as orgqr: H_i changes rows i.. of columns i..; column i is e_i - tau_i v_i
            v, tau = np.concatenate([[1], a[idx][i + 1:, i]]), taus[idx + (i,)]
            x[i:, i + 1:] -= tau * np.outer(v, np.conj(v) @ x[i:, i + 1:])
            x[i:, i] = -tau * v
            x[i, i] = 1 - tau
    return q


@evaluator("QrDecomposition")
def qr_decomposition(ctx: EvaluatorContext, operand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, bad = finite_part(widen(operand))
    packed, taus = nan_where(bad, householder_qr(a), (True, False))
    packed_shape, taus_shape = ctx.shape.tuple_shapes()
    return (packed + 0.0).astype(packed_shape.numpy_dtype()), (taus + 0.0).astype(taus_shape.numpy_dtype())


@evaluator("ProductOfElementaryHouseholderReflectors")
def product_of_householder_reflectors(ctx: EvaluatorContext, a: np.ndarray, taus: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return (householder_product(widen(a), widen(taus)) + 0.0).astype(ctx.shape.numpy_dtype())


def householder_qr_holds(a: np.ndarray) -> Callable[[Sequence[np.ndarray]], tuple[np.ndarray, ...]]:
    """The reflectors (taus, and v_i below the diagonal) make a unitary Q = H_0 ... H_{k-1} (all m columns)
    and Q R = A, R the upper triangle of q_and_r (its first k rows), within the identity bound."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    bound = identity_bound(a.dtype, m, n)
    wide = widen(a)

    def holds(outputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        packed, taus = widen(np.asarray(outputs[0])), widen(np.asarray(outputs[1]))
        reflectors = np.concatenate([packed[..., :, :k], np.zeros(packed.shape[:-2] + (m, m - k), packed.dtype)], -1)
        with np.errstate(all="ignore"):
            q = householder_product(reflectors, taus)
            r = np.triu(packed)[..., :k, :]
            ok = _batch_ok(q[..., :, :k] @ r - wide, _frobenius(wide), bound)
            ok &= _batch_ok(adjoint(q) @ q - np.eye(m), np.ones(ok.shape), bound)
        return _per_matrix(ok, outputs, (True, False))
    return holds


def non_finite_reflectors(a: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """Per column j of the product: whether a reflector H_i that reaches it (i <= j) has a NaN or an
    infinity in tau_i or in v_i (a's column i below the diagonal)."""
    m, n = a.shape[-2], a.shape[-1]
    k = taus.shape[-1]
    below = np.tril(np.ones((m, k), bool), -1)
    bad = ~np.isfinite(taus) | np.any(~np.isfinite(a[..., :, :k]) & below, axis=-2)  # per reflector
    reaches = np.arange(k)[:, None] <= np.arange(n)[None, :]  # H_i reaches column j when i <= j
    return np.any(bad[..., :, None] & reaches, axis=-2)


@implementation_defined("ProductOfElementaryHouseholderReflectors")
def product_of_householder_reflectors_outcomes(ctx: EvaluatorContext, a: np.ndarray, taus: np.ndarray) -> dict[str,
                                               Allowed]:
    with np.errstate(all="ignore"):
        zeros = householder_product(widen(a), widen(taus)) == 0
        touched = np.broadcast_to(non_finite_reflectors(widen(a), widen(taus))[..., None, :], a.shape)
    return {"zero_signs": Allowed(zeros, {"either_sign": zero_of_either_sign}),
            "non_finite_input": Allowed(touched, {"any_values": any_value})}


@implementation_defined("QrDecomposition")
def qr_decomposition_outcomes(ctx: EvaluatorContext, operand: np.ndarray) -> dict[str, Allowed]:
    return {"reflectors": Allowed(np.True_, {"any_householder_form": Holds(householder_qr_holds(operand))}),
            "non_finite_input": non_finite_input(widen(operand), (True, False), any_value)}


# --- Eigh ---------------------------------------------------------------------------------------

@evaluator("Eigh")
def eigh(ctx: EvaluatorContext, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's eigenvectors, each scaled so that its first non-negligible component is real and
    positive (the reference's choice; eigenvalues ascending)."""
    h, bad = finite_part(hermitian_from_triangle(widen(a), ctx.attr("lower")))
    w, v = np.linalg.eigh(h)  # ascending
    v = v * np.conj(leading_phase(v))[..., None, :] + 0.0  # + 0.0: the rescaling's -0 parts become +0
    v, w = nan_where(bad, (v, w), (True, False))
    v_shape, w_shape = ctx.shape.tuple_shapes()
    return v.astype(v_shape.numpy_dtype()), w.astype(w_shape.numpy_dtype())


def eigh_holds(a: np.ndarray, lower: bool, sort: bool) -> Callable[[Sequence[np.ndarray]], tuple[np.ndarray, ...]]:
    """H V = V diag(w) with V unitary and w real, where H is the Hermitian matrix a's triangle
    describes; w ascending if sorted, and equal to H's eigenvalues within the bound (an eigenvalue
    of a Hermitian matrix moves by at most ||dH||_2 (Weyl), whatever the condition of H)."""
    n = a.shape[-1]
    h, bad = finite_part(hermitian_from_triangle(widen(a), lower))
    bound = identity_bound(a.dtype, n, n)
    scale = _frobenius(h)
    exact = np.linalg.eigvalsh(h)

    def holds(outputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        v, w = widen(np.asarray(outputs[0])), np.asarray(outputs[1]).astype(np.float64)
        ok = _batch_ok(h @ v - v * w[..., None, :], scale, bound)
        ok &= _batch_ok(adjoint(v) @ v - np.eye(n), np.ones(ok.shape), bound)
        listed = w if sort else np.sort(w, axis=-1)
        ok &= _batch_ok((listed - exact)[..., None], scale, bound) & ~bad
        return _per_matrix(ok, outputs, (True, False))
    return holds



# --- SVD ----------------------------------------------------------------------------------------

@evaluator("SVD")
def svd(ctx: EvaluatorContext, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's SVD (d descending), then the reference's choice: each column of U scaled so that its
    first non-negligible component is real and positive, the matching column of V by the same unit
    number (for a non-zero singular value), the other columns of V on their own."""
    clean, bad = finite_part(widen(a))
    u, d, vh = np.linalg.svd(clean, full_matrices=True)
    v = adjoint(vh)
    k = d.shape[-1]
    u_phase, v_phase = np.conj(leading_phase(u)), np.conj(leading_phase(v))
    paired = d > 1e-8 * np.max(d, axis=-1, keepdims=True, initial=0.0)
    v_phase[..., :k] = np.where(paired, u_phase[..., :k], v_phase[..., :k])
    u, v = u * u_phase[..., None, :], v * v_phase[..., None, :]
    u, d, v = nan_where(bad, (u, d, v), (True, False, True))
    u_shape, d_shape, v_shape = ctx.shape.tuple_shapes()
    return ((u + 0.0).astype(u_shape.numpy_dtype()), d.astype(d_shape.numpy_dtype()),  # -0 parts become +0
            (v + 0.0).astype(v_shape.numpy_dtype()))


def svd_holds(a: np.ndarray) -> Callable[[Sequence[np.ndarray]], tuple[np.ndarray, ...]]:
    """U diag(d) V^H = A with U and V unitary, d >= 0 descending and equal to A's singular values
    within the bound (a singular value moves by at most ||dA||_2, whatever the condition of A). Checked on A and d
    scaled by a power of two (unit_scale), so that a matrix holding values near the type's largest one is judged,
    not overflowed."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    wide = widen(a)
    unit = unit_scale(wide)
    wide = wide * unit
    bound = identity_bound(a.dtype, m, n)
    scale = _frobenius(wide)
    clean, bad = finite_part(wide)
    exact = np.linalg.svd(clean, compute_uv=False)

    def holds(outputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        u, d, v = widen(np.asarray(outputs[0])), np.asarray(outputs[1]).astype(np.float64), widen(np.asarray(outputs[2]))
        scaled_d = d * unit[..., 0]
        ok = _batch_ok((u[..., :, :k] * scaled_d[..., None, :]) @ adjoint(v[..., :, :k]) - wide, scale, bound)
        ok &= _batch_ok(adjoint(u) @ u - np.eye(m), np.ones(ok.shape), bound)
        ok &= _batch_ok(adjoint(v) @ v - np.eye(n), np.ones(ok.shape), bound)
        ok &= _batch_ok((scaled_d - exact)[..., None], scale, bound)
        ok &= np.all((d >= 0) & (np.diff(d, axis=-1, prepend=np.inf) <= 0), axis=-1) & ~bad
        return _per_matrix(ok, outputs, (True, False, True))
    return holds



# --- LU -----------------------------------------------------------------------------------------

def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaussian elimination with partial pivoting (LAPACK getrf's choices: the first row of largest
    magnitude in the column, a complex number's magnitude being |re| + |im| as in LAPACK's i?amax;
    a zero column is left as it is): (lu, pivots, permutation)."""
    lu = widen(a).copy()
    *batch, m, n = lu.shape
    k = min(m, n)
    pivots = np.zeros((*batch, k), np.int32)
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), (*batch, m)).copy()
    with np.errstate(all="ignore"):
        for idx in np.ndindex(*batch):
            x, p = lu[idx], perm[idx]
            for j in range(k):
                mags = np.abs(x[j:, j].real) + np.abs(x[j:, j].imag)
                r = j + int(np.argmax(np.where(np.isnan(mags), np.inf, mags)))
                pivots[idx + (j,)] = r
                if r != j:
                    x[[j, r]] = x[[r, j]]
                    p[[j, r]] = p[[r, j]]
                if x[j, j] != 0:
                    x[j + 1:, j] /= x[j, j]
                    x[j + 1:, j + 1:] -= np.outer(x[j + 1:, j], x[j, j + 1:])
    return lu, pivots, perm


@evaluator("LU")
def lu(ctx: EvaluatorContext, operand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    packed, pivots, perm = lu_factor(operand)
    with np.errstate(all="ignore"):
        return packed.astype(ctx.shape.tuple_shapes()[0].numpy_dtype()), pivots, perm


def unpack_lu(packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L, U) from the packed m x n result: L m x k unit lower, U k x n upper, k = min(m, n)."""
    m, n = packed.shape[-2], packed.shape[-1]
    k = min(m, n)
    low = np.tril(packed[..., :, :k], -1) + np.eye(m, k)
    return low, np.triu(packed[..., :k, :])


def permutation_of(pivots: np.ndarray, m: int) -> np.ndarray:
    """The row permutation the row swaps i <-> pivots[i] (in order) make of 0..m-1."""
    perm = np.broadcast_to(np.arange(m), (*pivots.shape[:-1], m)).copy()
    for idx in np.ndindex(*pivots.shape[:-1]):
        for i, r in enumerate(pivots[idx]):
            perm[idx + (i,)], perm[idx + (int(r),)] = perm[idx + (int(r),)], perm[idx + (i,)]
    return perm


def valid_pivoting(pivots: np.ndarray, perm: np.ndarray, m: int) -> np.ndarray:
    """Per matrix: every pivot a row (0 <= p < m) and ``perm`` the permutation those row swaps make."""
    valid = np.all((pivots >= 0) & (pivots < m), axis=-1) & np.all(np.sort(perm, axis=-1) == np.arange(m), axis=-1)
    safe_pivots = np.where((pivots >= 0) & (pivots < m), pivots, 0)
    return valid & np.all(permutation_of(safe_pivots, m) == perm, axis=-1)


def lu_pivoting_holds(m: int) -> Callable[[Sequence[np.ndarray]], tuple[np.ndarray, ...]]:
    """Any packed factors, with pivots and permutation a valid pivoting (LU of a non-finite matrix)."""
    def holds(outputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        ok = valid_pivoting(np.asarray(outputs[1]), np.asarray(outputs[2]), m)
        return _per_matrix(ok, outputs, (True, False, False))
    return holds


def lu_holds(a: np.ndarray) -> Callable[[Sequence[np.ndarray]], tuple[np.ndarray, ...]]:
    """P A = L U with P the permutation both ``pivots`` (as swaps) and ``permutation`` describe, L
    unit lower triangular with |L| <= 1 (partial pivoting; sqrt 2 for complex, where the magnitude
    compared may be |re| + |im| as LAPACK's or the modulus), U upper triangular; backward error
    bounded by the bound times ||L|| ||U|| (the growth of elimination, Higham Thm 9.3)."""
    m, n = a.shape[-2], a.shape[-1]
    wide = widen(a)
    bound = identity_bound(a.dtype, m, n)

    def holds(outputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        packed, pivots, perm = widen(np.asarray(outputs[0])), np.asarray(outputs[1]), np.asarray(outputs[2])
        batch = perm.shape[:-1]
        ok = valid_pivoting(pivots, perm, m)
        low, up = unpack_lu(packed)
        rows = np.take_along_axis(wide, np.where(ok[..., None], perm, np.arange(m))[..., None].astype(np.int64),
                                  axis=-2) if m else wide
        scale = _frobenius(low) * _frobenius(up) + _frobenius(wide)
        ok &= _batch_ok(low @ up - rows, scale, bound)
        with np.errstate(invalid="ignore"):
            limit = np.sqrt(2) if np.iscomplexobj(a) else 1.0
            ok &= np.all(np.abs(np.tril(packed[..., :, :min(m, n)], -1)) <= limit + bound, axis=(-2, -1))
        return _per_matrix(ok.reshape(batch), outputs, (True, False, False))
    return holds


# --- implementation-defined: the factors -----------------------------------------------------------
# Every element of a decomposition's result is free within its identity: the other outcome accepts
# any outputs that satisfy it together (judged on the whole tuple result).

def zero_below_diagonal(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Any value on and above the diagonal, zero below it (an R factor's structure)."""
    n, m = actual.shape[-2], actual.shape[-1]
    return np.broadcast_to(~np.tril(np.ones((n, m), bool), -1), actual.shape) | (actual == 0)


def non_finite_input(a: np.ndarray, matrix_outputs: Sequence[bool], outcome: Any) -> Allowed:
    """The ``non_finite_input`` entry: ``outcome`` allowed in every result element of the matrices of
    ``a`` (the matrices the op reads) that hold a NaN or an infinity."""
    return Allowed(per_matrix_masks(non_finite_matrices(a), matrix_outputs), {"any_values": outcome})


@implementation_defined("QR")
def qr_outcomes(ctx: EvaluatorContext, operand: np.ndarray) -> dict[str, Allowed]:
    return {"factors": Allowed(np.True_, {"any_factors": Holds(qr_holds(operand))}),
            "non_finite_input": non_finite_input(widen(operand), (True, True), (any_value, zero_below_diagonal))}


@implementation_defined("Eigh")
def eigh_outcomes(ctx: EvaluatorContext, a: np.ndarray) -> dict[str, Allowed]:
    holds = eigh_holds(a, ctx.attr("lower"), ctx.attr("sort_eigenvalues"))
    return {"factors": Allowed(np.True_, {"any_factors": Holds(holds)}),
            "non_finite_input": non_finite_input(hermitian_from_triangle(widen(a), ctx.attr("lower")), (True, False),
                                                 any_value)}


@implementation_defined("SVD")
def svd_outcomes(ctx: EvaluatorContext, a: np.ndarray) -> dict[str, Allowed]:
    return {"factors": Allowed(np.True_, {"any_factors": Holds(svd_holds(a))}),
            "non_finite_input": non_finite_input(widen(a), (True, False, True), any_value)}


@implementation_defined("LU")
def lu_outcomes(ctx: EvaluatorContext, operand: np.ndarray) -> dict[str, Allowed]:
    return {"pivoting": Allowed(np.True_, {"any_pivoting": Holds(lu_holds(operand))}),
            "non_finite_input": non_finite_input(widen(operand), (True, False, False),
                                                 Holds(lu_pivoting_holds(operand.shape[-2])))}
