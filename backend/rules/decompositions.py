"""Shape rules of Cholesky, TriangularSolve and xla_client's decompositions QR, QrDecomposition,
ProductOfElementaryHouseholderReflectors, Eigh, SVD and LU.

Each takes a batch of matrices: every dimension but the two minor ones is a batch dimension.
"""

from __future__ import annotations

from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape
from backend.rules import OpContext, shape_rule
from backend.rules.elementwise import _REAL_OF


def matrix_batch(ctx: OpContext, arg: str, rank_constraint: str, square_constraint: str | None) -> Shape:
    """The operand ``arg``, checked to be a batch of matrices (rank >= 2), square where asked."""
    shape = ctx.shape(arg)
    if not shape.is_array() or shape.rank() < 2:
        raise ctx.fail(rank_constraint, f"{arg} must have rank >= 2 (a batch of matrices), got {shape}", arg,
                       **{arg: str(shape)})
    if square_constraint is not None and shape.dimensions()[-1] != shape.dimensions()[-2]:
        raise ctx.fail(square_constraint, f"{arg} must be a batch of square matrices [..., M, M], got {shape}", arg,
                       **{arg: str(shape)})
    return shape


def real_type(etype: PrimitiveType) -> PrimitiveType:
    """The real type of an element type (F32 for C64, F64 for C128, the type itself otherwise)."""
    return _REAL_OF.get(etype, etype)


def _array(etype: PrimitiveType, dims: tuple[int, ...] | list[int]) -> Shape:
    return Shape.array_shape(etype, tuple(dims))


@shape_rule("Cholesky")
def cholesky(ctx: OpContext) -> Shape:
    return matrix_batch(ctx, "a", "C2", "C3")


@shape_rule("TriangularSolve")
def triangular_solve(ctx: OpContext) -> Shape:
    a = matrix_batch(ctx, "a", "C2", "C3")
    b = matrix_batch(ctx, "b", "C2", None)
    if a.rank() != b.rank() or a.dimensions()[:-2] != b.dimensions()[:-2]:
        raise ctx.fail("C4", f"a and b must have equal batch dimensions, got a {a} and b {b}", "b",
                       a=str(a), b=str(b))
    m = a.dimensions()[-1]
    left = ctx.attr("left_side")
    solved = b.dimensions()[-2] if left else b.dimensions()[-1]
    if solved != m:
        form = "[..., M, K] (left_side: op(a) x = b)" if left else "[..., K, M] (not left_side: x op(a) = b)"
        raise ctx.fail("C5", f"b must be {form} with M = {m} from a {a}, got b {b}", "b", a=str(a), b=str(b),
                       left_side=left)
    return b


@shape_rule("QR")
def qr(ctx: OpContext) -> Shape:
    a = matrix_batch(ctx, "operand", "C2", None)
    *batch, m, n = a.dimensions()
    k = min(m, n)
    full = ctx.attr("full_matrices")
    et = a.element_type()
    return Shape.tuple_shape([_array(et, [*batch, m, m if full else k]), _array(et, [*batch, m if full else k, n])])


@shape_rule("QrDecomposition")
def qr_decomposition(ctx: OpContext) -> Shape:
    a = matrix_batch(ctx, "operand", "C2", None)
    *batch, m, n = a.dimensions()
    return Shape.tuple_shape([a, _array(a.element_type(), [*batch, min(m, n)])])


@shape_rule("ProductOfElementaryHouseholderReflectors")
def product_of_householder_reflectors(ctx: OpContext) -> Shape:
    a = matrix_batch(ctx, "a", "C2", None)
    taus = ctx.shape("taus")
    *batch, m, n = a.dimensions()
    if taus.rank() != a.rank() - 1 or list(taus.dimensions()[:-1]) != batch:
        raise ctx.fail("C3", f"taus must be [..., K] with a's batch dimensions {batch}, got taus {taus} for a {a}",
                       "taus", a=str(a), taus=str(taus))
    if m < n:
        raise ctx.fail("C4", f"a must have M >= N (at least as many rows as columns), got {a}", "a", a=str(a))
    k = taus.dimensions()[-1]
    if k > n:
        raise ctx.fail("C5", f"taus must hold at most N = {n} factors (one per column of a), got {k}", "taus",
                       a=str(a), taus=str(taus))
    return a


@shape_rule("Eigh")
def eigh(ctx: OpContext) -> Shape:
    a = matrix_batch(ctx, "a", "C2", "C3")
    _check_iterations(ctx, "C4", "C5")
    *batch, n, _ = a.dimensions()
    et = a.element_type()
    return Shape.tuple_shape([_array(et, [*batch, n, n]), _array(real_type(et), [*batch, n])])


@shape_rule("SVD")
def svd(ctx: OpContext) -> Shape:
    a = matrix_batch(ctx, "a", "C2", None)
    _check_iterations(ctx, "C3", "C4")
    *batch, m, n = a.dimensions()
    et = a.element_type()
    return Shape.tuple_shape([_array(et, [*batch, m, m]), _array(real_type(et), [*batch, min(m, n)]),
                              _array(et, [*batch, n, n])])


@shape_rule("LU")
def lu(ctx: OpContext) -> Shape:
    a = matrix_batch(ctx, "operand", "C2", None)
    *batch, m, n = a.dimensions()
    return Shape.tuple_shape([a, _array(PrimitiveType.S32, [*batch, min(m, n)]),
                              _array(PrimitiveType.S32, [*batch, m])])


def _check_iterations(ctx: OpContext, max_iter_constraint: str, epsilon_constraint: str) -> None:
    """Eigh's and SVD's Jacobi parameters: max_iter >= 1, epsilon finite and > 0."""
    if ctx.attr("max_iter") < 1:
        raise ctx.fail(max_iter_constraint, f"max_iter must be >= 1, got {ctx.attr('max_iter')}", "max_iter",
                       max_iter=ctx.attr("max_iter"))
    eps = ctx.attr("epsilon")
    if not eps > 0 or eps != eps or eps == float("inf"):
        raise ctx.fail(epsilon_constraint, f"epsilon must be a finite number > 0, got {eps}", "epsilon", epsilon=eps)
