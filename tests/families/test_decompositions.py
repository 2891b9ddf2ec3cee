"""Cholesky, TriangularSolve, QR, Eigh, SVD and LU on the reference and jax backends.

Results are checked by their defining identities (with NumPy's own solvers as the independent
check where a result is unique), batched and complex; every TriangularSolve flag combination;
the identity predicates are shown to reject wrong factors; the spec's hand-worked goldens
satisfy the identities. QrDecomposition and ProductOfElementaryHouseholderReflectors (xla_client's Householder
form) are checked against SciPy's LAPACK wrappers (an independent geqrf / orgqr).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import scipy.linalg
from scipy.linalg import lapack

import specs
from backend import (
    PrimitiveType,
    Shape,
    TriangularSolveOptions_Transpose,
    XlaBuilder,
    dtype_to_etype,
    get_backend,
    ops,
)
from backend.errors import OpError
from backend.reference.decompositions import eigh_holds, lu_holds, qr_holds, svd_holds
from conformance.values import MATRIX_STRUCTURES
from specs.field_types import MATRIX_STRUCTURES as STRUCTURE_NAMES
from tests.support.running import parameters, run_built

BACKENDS = ("reference", "jax")
TYPES = (np.float32, np.float64, np.complex64, np.complex128)
IDENTITY_TYPES = (np.float32, np.complex128)  # f64 and c64: the conformance suite's generated cases
Transpose = TriangularSolveOptions_Transpose
F32 = PrimitiveType.F32


def run(backend: str, op: str, arrays: list[np.ndarray], **attrs: Any) -> Any:
    """``ops.<op>(*arrays, **attrs)`` on ``backend`` (as one instruction): its result, or the tuple of its results."""
    out = run_built(backend, lambda *params: ops.build(op, *params, **attrs), *arrays)
    return out[0] if len(out) == 1 else tuple(out)


def random(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    x = rng.uniform(-1, 1, shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


def eps(dtype: Any) -> float:
    return float(np.finfo(np.dtype(dtype).type(0).real.dtype).eps)


def adjoint(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


# --- Cholesky ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", TYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_reproduces_a(backend: str, dtype: Any, lower: bool) -> None:
    rng = np.random.default_rng(1)
    m = random(rng, (2, 3, 4, 4), dtype).astype(np.complex128 if np.iscomplexobj(np.zeros(1, dtype)) else np.float64)
    a = (m @ adjoint(m) + 4 * np.eye(4)).astype(dtype)
    garbage = np.where(np.triu(np.ones((4, 4), bool), 1) if lower else np.tril(np.ones((4, 4), bool), -1), 99, a)
    factor = run(backend, "Cholesky", [garbage.astype(dtype)], lower=lower).astype(np.complex128)
    tri = np.tril(factor) if lower else np.triu(factor)
    np.testing.assert_array_equal(factor, tri)  # 0 in the other triangle (XLA's and the reference's choice)
    product = tri @ adjoint(tri) if lower else adjoint(tri) @ tri
    np.testing.assert_allclose(product, a, atol=200 * eps(dtype) * np.abs(a).max())
    assert np.all(np.real(np.diagonal(tri, axis1=-2, axis2=-1)) > 0)
    np.testing.assert_allclose(np.imag(np.diagonal(tri, axis1=-2, axis2=-1)), 0, atol=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cholesky_not_positive_definite_gives_nan_in_its_triangle_only(backend: str) -> None:
    a = np.array([[[4, 2], [2, 5]], [[1, 2], [2, 1]]], np.float32)
    factor = run(backend, "Cholesky", [a], lower=True)
    np.testing.assert_array_equal(factor[0], [[2, 0], [1, 2]])
    assert np.isnan(factor[1][np.tril_indices(2)]).all() and factor[1][0, 1] == 0


# --- TriangularSolve ------------------------------------------------------------------------------

def _op(t: np.ndarray, transpose: Transpose) -> np.ndarray:
    return {Transpose.NO_TRANSPOSE: t, Transpose.TRANSPOSE: np.swapaxes(t, -1, -2),
            Transpose.ADJOINT: adjoint(t)}[transpose]


FLAGS = list(itertools.product([True, False], [True, False], [True, False],
                               [Transpose.NO_TRANSPOSE, Transpose.TRANSPOSE, Transpose.ADJOINT]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_triangular_solve_every_flag_combination(backend: str, dtype: Any) -> None:
    """All 24 combinations of left_side, lower, unit_diagonal and transpose_a in one computation."""
    rng = np.random.default_rng(7)
    n, k = 4, 3
    a = random(rng, (2, n, n), dtype) + (2 * n * np.eye(n)).astype(dtype)
    b_left, b_right = random(rng, (2, n, k), dtype), random(rng, (2, k, n), dtype)
    builder = XlaBuilder("solves")
    params = parameters(builder, a, b_left, b_right)
    ops.Tuple(builder, [ops.TriangularSolve(params[0], params[1] if left else params[2], left_side=left, lower=lower,
                                            unit_diagonal=unit, transpose_a=transpose)
                        for left, lower, unit, transpose in FLAGS])
    results = get_backend(backend).execute(builder.build(), [a, b_left, b_right])
    for (left, lower, unit, transpose), x in zip(FLAGS, results):
        t = np.tril(a) if lower else np.triu(a)
        if unit:
            t = t - np.eye(n) * t + np.eye(n)
        op_t = _op(t.astype(np.complex128), transpose)
        # independent check: NumPy's general solver on the triangle read
        want = np.linalg.solve(op_t, b_left) if left else adjoint(np.linalg.solve(adjoint(op_t), adjoint(b_right)))
        np.testing.assert_allclose(x, want, rtol=100 * eps(dtype), atol=100 * eps(dtype),
                                   err_msg=f"left_side={left} lower={lower} unit_diagonal={unit} {transpose.name}")


def test_triangular_solve_transpose_names_and_errors() -> None:
    a, b = np.array([[2, 7], [1, 4]], np.float32), np.array([[4], [8]], np.float32)
    by_name = run("reference", "TriangularSolve", [a, b], transpose_a="TRANSPOSE")
    np.testing.assert_array_equal(by_name, [[1], [2]])  # T^T = [[2, 1], [0, 4]]
    for same in (Transpose.TRANSPOSE, "transpose", 2):
        np.testing.assert_array_equal(run("reference", "TriangularSolve", [a, b], transpose_a=same), [[1], [2]])
    builder = XlaBuilder("ts")
    pa = ops.Parameter(builder, 0, Shape.array_shape(dtype_to_etype(a.dtype), (2, 2)), "a")
    pb = ops.Parameter(builder, 1, Shape.array_shape(dtype_to_etype(a.dtype), (2, 1)), "b")
    for bad in (Transpose.TRANSPOSE_INVALID, "SIDEWAYS", 0, 7, True, None):
        with pytest.raises(OpError) as e:
            ops.TriangularSolve(pa, pb, transpose_a=bad)
        assert e.value.constraint == "C6"
    with pytest.raises(OpError) as e:
        ops.TriangularSolve(pa, pb, left_side=False)
    assert e.value.constraint == "C5"


# --- QR, Eigh, SVD, LU: identities -------------------------------------------------------------

SHAPES = [(3, 3), (4, 2), (2, 5), (2, 3, 3), (2, 1, 4, 3)]


def _all_hold(verdicts: tuple[np.ndarray, ...]) -> bool:
    return all(bool(np.all(v)) for v in verdicts)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", IDENTITY_TYPES)
def test_qr_identity(backend: str, dtype: Any) -> None:
    rng = np.random.default_rng(2)
    for shape, full in itertools.product(SHAPES, [True, False]):
        a = random(rng, shape, dtype)
        q, r = run(backend, "QR", [a], full_matrices=full)
        m, n = shape[-2:]
        assert q.shape[-2:] == ((m, m) if full else (m, min(m, n))) and r.shape[-2:] == ((m, n) if full else (min(m, n), n))
        assert _all_hold(qr_holds(a)((q, r))), (shape, full)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", IDENTITY_TYPES)
def test_eigh_identity(backend: str, dtype: Any) -> None:
    rng = np.random.default_rng(3)
    for n, lower, sort in itertools.product([1, 3, 5], [True, False], [True, False]):
        a = random(rng, (2, n, n), dtype)
        v, w = run(backend, "Eigh", [a], lower=lower, sort_eigenvalues=sort)
        assert w.dtype == np.zeros(1, dtype).real.dtype
        assert _all_hold(eigh_holds(a, lower, sort)((v, w))), (n, lower, sort)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", IDENTITY_TYPES)
def test_svd_identity(backend: str, dtype: Any) -> None:
    rng = np.random.default_rng(4)
    for shape in SHAPES:
        a = random(rng, shape, dtype)
        u, d, v = run(backend, "SVD", [a])
        assert _all_hold(svd_holds(a)((u, d, v))), shape


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", IDENTITY_TYPES)
def test_lu_identity(backend: str, dtype: Any) -> None:
    rng = np.random.default_rng(5)
    for shape in SHAPES:
        a = random(rng, shape, dtype)
        assert _all_hold(lu_holds(a)(run(backend, "LU", [a]))), shape


def test_identities_reject_wrong_factors() -> None:
    rng = np.random.default_rng(6)
    a = random(rng, (3, 3), np.float64)
    q, r = run("reference", "QR", [a], full_matrices=True)
    assert _all_hold(qr_holds(a)((q, r)))
    assert not _all_hold(qr_holds(a)((q * 1.001, r)))          # Q R != A
    assert not _all_hold(qr_holds(a)((q, r + np.tril(np.ones((3, 3)), -1) * 1e-30)))  # R not triangular
    h = a + a.T
    v, w = run("reference", "Eigh", [h])
    assert not _all_hold(eigh_holds(h, True, True)((v, w[::-1])))  # not ascending
    assert _all_hold(eigh_holds(h, True, False)((v[:, ::-1], w[::-1])))  # any order without sorting
    assert not _all_hold(eigh_holds(h, True, True)((v * 2, w)))  # V not orthonormal
    u, d, vv = run("reference", "SVD", [a])
    assert _all_hold(svd_holds(a)((-u, d, -vv)))  # signs are free
    assert not _all_hold(svd_holds(a)((u[:, ::-1], d[::-1], vv[:, ::-1])))  # ascending d
    lu, piv, perm = run("reference", "LU", [a])
    assert not _all_hold(lu_holds(a)((lu, piv, perm[::-1].copy())))  # permutation disagrees with pivots
    # a valid factorization without partial pivoting (|L| > 1) is rejected: [[1, 2], [3, 4]] unpivoted
    small = np.array([[1.0, 2.0], [3.0, 4.0]])
    unpivoted = (np.array([[1.0, 2.0], [3.0, -2.0]]), np.array([0, 1], np.int32), np.array([0, 1], np.int32))
    assert not _all_hold(lu_holds(small)(unpivoted))


@pytest.mark.parametrize("op, holds", [("QR", lambda a, at: qr_holds(a)), ("SVD", lambda a, at: svd_holds(a)),
                                       ("LU", lambda a, at: lu_holds(a)),
                                       ("Eigh", lambda a, at: eigh_holds(a, at.get("lower", True),
                                                                         at.get("sort_eigenvalues", True)))])
def test_hand_worked_goldens_satisfy_the_identity(op: str, holds: Any) -> None:
    spec = specs.get(op)
    for ex in spec.examples:
        if "non_finite_input" in ex.implementation_defined:  # no identity there: see the tests below
            continue
        (a,) = ex.inputs.values()
        assert _all_hold(holds(a, ex.attrs)(ex.expected)), ex.name
        for backend in BACKENDS:
            assert _all_hold(holds(a, ex.attrs)(run(backend, op, [a], **ex.attrs))), (ex.name, backend)


def test_generator_structures() -> None:
    assert set(MATRIX_STRUCTURES) == set(STRUCTURE_NAMES)
    rng = np.random.default_rng(8)
    m = rng.uniform(-1, 1, (2, 5, 5))
    spd = MATRIX_STRUCTURES["positive_definite"](m)
    assert np.all(np.linalg.eigvalsh(spd) >= 5 - 1e-9) and np.linalg.cond(spd).max() <= 6
    dd = MATRIX_STRUCTURES["diagonally_dominant"](m)
    assert np.linalg.cond(np.tril(dd)).max() <= 4 and np.linalg.cond(np.triu(dd)).max() <= 4


# --- non-finite input ----------------------------------------------------------------------------

NON_FINITE_OPS = ("QR", "QrDecomposition", "Eigh", "SVD", "LU")


@pytest.mark.parametrize("op", NON_FINITE_OPS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_matrix_leaves_the_rest_of_the_batch_alone(op: str, bad: float) -> None:
    """NumPy's eigh and svd refuse a non-finite matrix; the reference must neither fail nor let that
    matrix change the others: the finite one gets the factors it gets alone, the other NaN (LU: its
    IEEE elimination)."""
    finite = np.array([[2.0, 1.0], [1.0, 3.0]])
    batch = np.stack([np.array([[1.0, 0.0], [bad, 1.0]]), finite])
    together, alone = run("reference", op, [batch]), run("reference", op, [finite])
    for out, single in zip(together, alone):
        np.testing.assert_array_equal(out[1], single)
    if op == "LU":  # IEEE elimination: column 0's pivot is its largest (NaN counts as largest) magnitude
        assert together[1][0].tolist() == [1, 1] and together[2][0].tolist() == [1, 0]
        return
    for k, out in enumerate(together):
        if (op, k) == ("QR", 1):  # R stays upper triangular: NaN on and above the diagonal, zero below
            assert np.isnan(out[0]).tolist() == [[True, True], [False, True]] and out[0][1, 0] == 0
        else:
            assert np.isnan(out[0]).all(), (k, out[0])


def test_an_infinite_diagonal_does_not_put_nan_beside_it() -> None:
    from backend.reference.decompositions import hermitian_from_triangle

    h = hermitian_from_triangle(np.array([[np.inf, 5.0], [2.0, 1.0]]), lower=True)
    np.testing.assert_array_equal(h, [[np.inf, 2.0], [2.0, 1.0]])


def _non_finite_entry(op: str, a: np.ndarray, **attrs: Any) -> Any:
    from backend.reference import IMPLEMENTATION_DEFINED

    class Ctx:
        @staticmethod
        def attr(name: str) -> Any:
            return {"lower": True, "sort_eigenvalues": True, **attrs}[name]

    return IMPLEMENTATION_DEFINED.get(op)(Ctx, a)["non_finite_input"]


def test_non_finite_input_covers_exactly_the_non_finite_matrices() -> None:
    a = np.stack([np.array([[1.0, np.nan], [2.0, 3.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])])
    allowed = _non_finite_entry("SVD", a)
    assert allowed.mask_of(0, (2, 2, 2))[0].all() and not allowed.mask_of(0, (2, 2, 2))[1].any()
    assert allowed.mask_of(1, (2, 2)).tolist() == [[True, True], [False, False]]
    # Eigh reads one triangle: a NaN above the diagonal with lower=True is not read, so nothing is covered
    assert not _non_finite_entry("Eigh", a, lower=True).mask_of(0, (2, 2, 2)).any()
    assert _non_finite_entry("Eigh", a, lower=False).mask_of(0, (2, 2, 2))[0].all()


def test_non_finite_input_keeps_the_structure_the_op_promises() -> None:
    a = np.array([[np.nan, 1.0], [2.0, 3.0]])
    q_any, r_upper = _non_finite_entry("QR", a).outcomes["any_values"]
    junk = np.array([[7.0, -1.0], [np.inf, 0.5]])
    assert q_any(junk, junk).all()
    assert r_upper(junk, junk).tolist() == [[True, True], [False, True]]  # R must stay zero below the diagonal
    lu_check = _non_finite_entry("LU", a).outcomes["any_values"].check
    assert all(m.all() for m in lu_check((junk, np.array([1, 1], np.int32), np.array([1, 0], np.int32))))
    assert not any(m.any() for m in lu_check((junk, np.array([1, 1], np.int32), np.array([0, 1], np.int32))))
    assert not any(m.any() for m in lu_check((junk, np.array([2, 1], np.int32), np.array([1, 0], np.int32))))


# -- QrDecomposition and ProductOfElementaryHouseholderReflectors -------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape, dtype", [((5, 3), np.float64), ((3, 5), np.complex128), ((2, 4, 4), np.float32)])
def test_householder_form_matches_lapack(backend, shape, dtype):
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, shape).astype(dtype)
    if np.iscomplexobj(a):
        a = a + 1j * rng.uniform(-1, 1, shape)
    packed, taus = run_built(backend, lambda x: ops.Tuple(x.builder, list(ops.QrDecomposition(x))), a)  # xla_client's pair
    tol = 1e-4 if dtype == np.float32 else 1e-12
    for idx in np.ndindex(*shape[:-2]):
        (want_packed, want_taus), _ = scipy.linalg.qr(a[idx].astype(np.complex128 if np.iscomplexobj(a)
                                                                    else np.float64), mode="raw")
        np.testing.assert_allclose(packed[idx], want_packed, atol=tol)
        np.testing.assert_allclose(taus[idx], want_taus, atol=tol)
        if shape[-2] >= shape[-1]:
            (q,) = run_built(backend, ops.ProductOfElementaryHouseholderReflectors, packed[idx], taus[idx])
            orgqr = lapack.zungqr if np.iscomplexobj(a) else lapack.dorgqr
            np.testing.assert_allclose(q, orgqr(want_packed, want_taus)[0], atol=tol)
            np.testing.assert_allclose(q @ np.triu(packed[idx])[: shape[-1]], a[idx], atol=10 * tol)


def test_product_errors_name_the_constraint():
    b = XlaBuilder("e")
    a = ops.Parameter(b, 0, Shape.array_shape(F32, (2, 3)), "a")
    taus = ops.Parameter(b, 1, Shape.array_shape(F32, (2,)), "taus")
    with pytest.raises(OpError) as e:
        ops.ProductOfElementaryHouseholderReflectors(a, taus)
    assert e.value.constraint == "C4" and e.value.arg == "a"


def test_triangular_solve_right_side_with_a_square_b() -> None:
    """x L = b with a square b: a backend that ignores left_side (solves L x = b) fails."""
    from conformance.runner import FAILED, PASSED, run_case
    from tests.support.cases import FunctionBackend, spec_example_case

    case = spec_example_case("TriangularSolve", "lower_right_square_b")
    assert run_case(case, get_backend("reference")).status == PASSED
    assert run_case(case, get_backend("jax")).status == PASSED
    left = FunctionBackend("ignores_left_side", lambda a, b: np.linalg.solve(np.tril(a), b).astype(b.dtype))
    assert run_case(case, left).status == FAILED


def test_cholesky_generated_inputs_tell_the_triangles_apart() -> None:
    """The generated Cholesky inputs hold P below the diagonal and P's entries halved above it: both triangles
    describe positive-definite matrices, but different ones, so a backend that factors the wrong triangle fails
    (a symmetric input would hide it)."""
    from conformance.generate import generated_cases
    from conformance.runner import FAILED, PASSED, run_case
    from tests.support.cases import FunctionBackend

    m = np.random.default_rng(3).uniform(-1, 1, (4, 4))
    two = MATRIX_STRUCTURES["positive_definite_two_triangles"](m)
    lower = np.tril(two) + np.conj(np.tril(two, -1)).T
    upper = np.triu(two) + np.conj(np.triu(two, 1)).T
    assert np.all(np.linalg.eigvalsh(lower) > 0) and np.all(np.linalg.eigvalsh(upper) > 0)
    assert not np.allclose(lower, upper)

    def wrong_triangle(a):
        """Cholesky of the Hermitian matrix of the triangle *not* named by the case (lower=True reads the upper)."""
        wide = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
        upper_h = np.triu(wide) + np.conj(np.swapaxes(np.triu(wide, 1), -1, -2))
        return np.linalg.cholesky(upper_h).astype(a.dtype)

    cases = [c for c in generated_cases(specs.get("Cholesky")) if c.attrs.get("lower") and "f64" in c.id
             and c.inputs["a"].shape[-1] > 1]
    assert cases
    for case in cases[:3]:
        assert run_case(case, get_backend("reference")).status == PASSED
        assert run_case(case, FunctionBackend("wrong_triangle", wrong_triangle)).status == FAILED, case.id


# -- xla_client's tuples ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("op, args, count", [("Eigh", (), 2), ("QR", (True,), 2), ("QrDecomposition", (), 2),
                                             ("SVD", (), 3), ("LU", (), 3)])
def test_xla_client_form_returns_a_python_tuple_of_its_results(op, args, count):
    """As xla_client's ops.cc (a std::pair / std::tuple): one GetTupleElement per result of the one tuple-shaped
    instruction, which ops.build gives itself."""
    b = XlaBuilder("t")
    a = ops.Parameter(b, 0, Shape.array_shape(F32, (3, 3)))
    results = getattr(ops, op)(a, *args)
    assert isinstance(results, tuple) and len(results) == count
    whole = ops.build(op, a, *args)
    assert b.get_shape(whole).is_tuple() and len(b.get_shape(whole).tuple_shapes()) == count
    for k, result in enumerate(results):
        assert str(b.get_shape(result)) == str(b.get_shape(whole).tuple_shapes()[k])
    assert ops.SEVERAL_RESULTS[op] == count


def test_build_names_an_op():
    with pytest.raises(OpError, match="no op named 'Eighh'"):
        ops.build("Eighh", None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_eigh_pair_runs_as_xla_client_code_wrote_it(backend):
    b = XlaBuilder("eigh")
    v, w = ops.Eigh(ops.Constant(b, np.array([[2.0, 1], [1, 2]])))
    out = get_backend(backend).execute(b.build(ops.Tuple(b, [v, w])), [])
    np.testing.assert_allclose(out[1], [1, 3], atol=1e-12)   # [[2, 1], [1, 2]]: eigenvalues 1 and 3
    np.testing.assert_allclose(np.abs(out[0]), np.full((2, 2), 0.5 ** 0.5), atol=1e-12)
