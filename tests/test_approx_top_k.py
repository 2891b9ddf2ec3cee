"""ApproxTopK, ApproxTopKFallback, ApproxTopKReductionOutputSize, QrDecomposition and
ProductOfElementaryHouseholderReflectors in xla_client's call forms, on reference and jax.

ApproxTopKReductionOutputSize's values are worked out by hand from XLA's formula (in the comments);
the Householder values are checked against SciPy's LAPACK wrappers (an independent geqrf / orgqr);
the closed outcome sets are shown to accept what XLA on TPU may return and to reject the rest.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from scipy.linalg import lapack

from backend import OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops
from backend.reference import IMPLEMENTATION_DEFINED
from backend.reference.allowed import Holds
from backend.rules.higher_order import ApproxTopKReductionOutputSize

F32, S32 = PrimitiveType.F32, PrimitiveType.S32
BACKENDS = ["reference", "jax"]


def _comparator(direction: str, types: tuple[PrimitiveType, ...]) -> object:
    c = XlaBuilder("cmp")
    params = [ops.Parameter(c, i, Shape.scalar_shape(t), f"p{i}") for i, t in enumerate(x for t in types for x in (t, t))]
    (ops.Gt if direction == "GT" else ops.Lt)(params[0], params[1])
    return c.build()


def _top_k(backend: str, values: np.ndarray, k: int, *, function=None, direction="GT", dim=-1, **kw) -> list:
    dim = dim % values.ndim
    b = XlaBuilder("approx")
    x = ops.Parameter(b, 0, Shape.array_shape(F32, values.shape), "x")
    idx = ops.Iota(b, Shape.array_shape(S32, values.shape), dim)
    inits = [ops.Constant(b, np.float32(-np.inf if direction == "GT" else np.inf)), ops.Constant(b, np.int32(-1))]
    (function or ops.ApproxTopK)(b, [x, idx], inits, k, dim, _comparator(direction, (F32, S32)), **kw)
    return get_backend(backend).execute(b.build(), [values])


# -- ApproxTopKReductionOutputSize -----------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    ((100, 2, 10, 0.9), (10, -1)),            # aggregate_to_topk (default): (top_k, -1)
    ((100, 2, 10, 0.9, False), (100, 0)),     # 100 <= the tiling 128: no reduction
    ((129, 2, 10, 0.9, False), (129, 0)),     # M = max(floor(9 / 0.10536) = 85, 128) = 128; floor(log2(129 // 128)) = 0
    # M = 128, log2(4096 // 128 = 32) = 5 (at most ceil(log2(4096 // 128)) = 5); ceil(32 / 2^5) * 128 = 128
    ((4096, 2, 10, 0.9, False), (128, 5)),
    ((4096, 2, 1, 0.5, False), (128, 5)),     # top_k = 1: t bins, ceil(log2(ceil(4096 / 128))) = 5
    ((4096, 2, 10, 1.0, False), (4096, 0)),   # recall 1: no reduction
    ((4096, 1, 10, 0.9, False), (1024, 2)),   # rank 1: tiling 1024; log2(4096 // 1024) = 2; ceil(4 / 4) * 1024
    # M = floor(63 / 0.051293) = 1228; log2(10000 // 1228 = 8) = 3; ceil(ceil(10000 / 128) = 79 / 8) = 10 -> 1280
    ((10000, 2, 64, 0.95, False), (1280, 3)),
    # override 6550786: M = min(floor(3903 / 0.0100503) = 388345, 6550786); log2(6550786 // 388345 = 16) = 4,
    # at most ceil(log2(2649 // 128 = 20)) = 5; ceil(ceil(2649 / 128) = 21 / 16) = 2 -> 256
    ((2649, 3, 3904, 0.99, False, 6550786), (256, 4)),
])
def test_reduction_output_size_hand_worked(args, expected):
    assert ops.ApproxTopKReductionOutputSize(*args) == expected
    assert ApproxTopKReductionOutputSize(*args) == expected


def test_reduction_output_size_agrees_with_xla_on_a_grid():
    jax_lib = pytest.importorskip("jax._src.lib")
    rng = np.random.default_rng(1)
    for _ in range(400):
        n = int(rng.choice([rng.integers(1, 5000), rng.integers(1, 1 << 22)]))
        k = int(rng.choice([1, 2, 10, 64, rng.integers(1, 5000)]))
        recall = float(np.float32(rng.choice([0.5, 0.9, 0.95, 0.99, 1.0, rng.random()])))
        override = int(rng.choice([-1, n, rng.integers(n, 1 << 24)]))
        args = (n, int(rng.integers(1, 4)), k, recall, False, override)
        assert ApproxTopKReductionOutputSize(*args) == tuple(jax_lib._jax.approx_top_k_reduction_output_size(*args))


@pytest.mark.parametrize("args, constraint", [
    ((4096, 2, 10, 1.5, False), "C8"), ((4096, 2, 10, 0.0, False), "C8"),
    ((4096, 2, 10, 0.9, False, 100), "C9"),
    ((-1, 2, 10, 0.9, False), "arg-type"), ((4096, 0, 10, 0.9, False), "arg-type"),
    ((4096, 2, 0, 0.9, False), "arg-type"), ((4096, 2, 10, float("nan"), False), "arg-type"),
    (("4096", 2, 10, 0.9), "arg-type"),
])
def test_reduction_output_size_errors(args, constraint):
    with pytest.raises(OpError) as e:
        ops.ApproxTopKReductionOutputSize(*args)
    assert e.value.constraint == constraint


# -- ApproxTopK and its fallback ---------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("function", [ops.ApproxTopK, ops.ApproxTopKFallback])
def test_long_rows_not_aggregated(backend, function):
    # rows of 4096 (rank 2): ReductionOutputSize gives 128 slots; the exact result (the reference, XLA's
    # fallback, jax on CPU) is the 128 largest sorted: a permutation of 0..4095 gives 4095 down to 3968
    rng = np.random.default_rng(0)
    values = np.stack([rng.permutation(4096), rng.permutation(4096)]).astype(np.float32)
    top, index = _top_k(backend, values, 10, function=function, aggregate_to_topk=False)
    assert top.shape == index.shape == (2, 128)
    np.testing.assert_array_equal(top, np.broadcast_to(np.arange(4095, 3967, -1, dtype=np.float32), (2, 128)))
    np.testing.assert_array_equal(np.take_along_axis(values, index, axis=1), top)


@pytest.mark.parametrize("backend", BACKENDS)
def test_min_k_along_dimension_zero_with_keywords(backend):
    values = np.array([[4, 0], [1, -1], [3, 5], [2, -2]], np.float32)
    top, index = _top_k(backend, values, 2, direction="LT", dim=0, recall_target=0.99)
    np.testing.assert_array_equal(top, [[1, -2], [2, -1]])
    np.testing.assert_array_equal(index, [[1, 3], [3, 1]])


def test_xla_client_keywords_and_errors():
    b = XlaBuilder("kw")
    x = ops.Parameter(b, 0, Shape.array_shape(F32, (5,)), "x")
    out = ops.ApproxTopK(builder=b, operands=[x], init_values=[ops.Constant(b, np.float32(0))], top_k=2,
                         reduction_dim=0, comparator=_comparator("GT", (F32,)), recall_target=0.5,
                         aggregate_to_topk=True, reduction_input_size_override=-1)
    assert b.get_shape(out) == Shape.tuple_shape([Shape.array_shape(F32, (2,))])
    with pytest.raises(OpError) as e:
        ops.ApproxTopK(b, [x], [ops.Constant(b, np.float32(0))], 2, 0, _comparator("GT", (F32,)), "high")
    assert e.value.constraint in ("C8", "arg-type")


class _Ctx:
    """A minimal evaluation context for the outcome functions: attributes, result shape, and the comparator
    of these tests (greater-than on operand 0) applied to the broadcast pairs of a row."""

    def __init__(self, attrs: dict, shape: Shape) -> None:
        self.attrs, self.shape = attrs, shape

    def attr(self, name: str):
        return self.attrs[name]

    def call(self, comp, args):
        return np.asarray(args[0]) > np.asarray(args[1])


def _verdict(op: str, values: np.ndarray, result: tuple, aggregate: bool = True) -> bool:
    n = values.shape[-1]
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), values.shape)
    size = result[0].shape[-1]
    shape = Shape.tuple_shape([Shape.array_shape(F32, values.shape[:-1] + (size,)),
                               Shape.array_shape(S32, values.shape[:-1] + (size,))])
    ctx = _Ctx({"reduction_dim": values.ndim - 1, "aggregate_to_topk": aggregate, "comparator": None,
                "dimension": -1}, shape)
    allowed = IMPLEMENTATION_DEFINED.get(op)(ctx, [values, iota], [np.float32(-np.inf), np.int32(-1)])
    (entry,) = allowed.values()
    (outcome,) = entry.outcomes.values()
    assert isinstance(outcome, Holds)
    return all(np.all(m) for m in outcome.check(result))


def test_approximate_outcome_set_accepts_tpu_like_results_and_rejects_others():
    values = np.array([[1, 9, 3, 7, 5, 2]], np.float32)
    f, i = np.float32, np.int32
    # a TPU-like result: the best (9) kept, 7 lost to a bin collision, 5 and 3 in order
    assert _verdict("ApproxTopK", values, (np.array([[9, 5, 3]], f), np.array([[1, 4, 2]], i)))
    # the init values fill a bin of padding
    assert _verdict("ApproxTopK", values, (np.array([[9, 7, -np.inf]], f), np.array([[1, 3, -1]], i)))
    # rejected: the best missing; out of order; a value paired with another's index; one position twice
    assert not _verdict("ApproxTopK", values, (np.array([[7, 5, 3]], f), np.array([[3, 4, 2]], i)))
    assert not _verdict("ApproxTopK", values, (np.array([[9, 3, 5]], f), np.array([[1, 2, 4]], i)))
    assert not _verdict("ApproxTopK", values, (np.array([[9, 7, 5]], f), np.array([[1, 4, 3]], i)))
    assert not _verdict("ApproxTopK", values, (np.array([[9, 9, 7]], f), np.array([[1, 1, 3]], i)))
    # not aggregated: any order, the best among the slots
    assert _verdict("ApproxTopK", values, (np.array([[3, 9]], f), np.array([[2, 1]], i)), aggregate=False)


def test_fallback_outcome_set_allows_only_other_orders_of_ties():
    values = np.array([[5, 3, 5, 5]], np.float32)
    f, i = np.float32, np.int32
    assert _verdict("ApproxTopKFallback", values, (np.array([[5, 5]], f), np.array([[0, 2]], i)))
    assert _verdict("ApproxTopKFallback", values, (np.array([[5, 5]], f), np.array([[3, 0]], i)))  # tie cut by the slice
    assert not _verdict("ApproxTopKFallback", values, (np.array([[5, 3]], f), np.array([[0, 1]], i)))
    assert not _verdict("ApproxTopKFallback", values, (np.array([[5, 5]], f), np.array([[0, 0]], i)))


# -- QrDecomposition and ProductOfElementaryHouseholderReflectors -------------------------------

def _run(backend: str, op, arrays: list[np.ndarray]) -> list:
    b = XlaBuilder("qr")
    params = [ops.Parameter(b, i, Shape.array_shape(PrimitiveType[x.dtype.name.upper().replace("FLOAT", "F")
                                                                  .replace("COMPLEX", "C")], x.shape), f"p{i}")
              for i, x in enumerate(arrays)]
    op(*params)
    return get_backend(backend).execute(b.build(), arrays)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape, dtype", [((5, 3), np.float64), ((3, 5), np.complex128), ((2, 4, 4), np.float32)])
def test_householder_form_matches_lapack(backend, shape, dtype):
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, shape).astype(dtype)
    if np.iscomplexobj(a):
        a = a + 1j * rng.uniform(-1, 1, shape)
    packed, taus = _run(backend, ops.QrDecomposition, [a])
    tol = 1e-4 if dtype == np.float32 else 1e-12
    for idx in np.ndindex(*shape[:-2]):
        (want_packed, want_taus), _ = scipy.linalg.qr(a[idx].astype(np.complex128 if np.iscomplexobj(a)
                                                                    else np.float64), mode="raw")
        np.testing.assert_allclose(packed[idx], want_packed, atol=tol)
        np.testing.assert_allclose(taus[idx], want_taus, atol=tol)
        if shape[-2] >= shape[-1]:
            (q,) = _run(backend, ops.ProductOfElementaryHouseholderReflectors, [packed[idx], taus[idx]])
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
