"""Iota, Tuple, GetTupleElement, Broadcast (and the older creation ops): hand-computed values, constraint ids."""

import numpy as np
import pytest

from backend import OpError, PrimitiveType, Shape, XlaBuilder, get_backend, ops


def _exec(b, args=(), backend="reference"):
    return get_backend(backend).execute(b.build(), list(args))


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_iota_doc_examples(backend):
    b = XlaBuilder("iota")
    ops.Iota(b, Shape.array_shape(PrimitiveType.S32, (4, 8)), 0)
    out = _exec(b, backend=backend)[0]
    assert out.dtype == np.int32 and out.tolist() == [[i] * 8 for i in range(4)]
    b = XlaBuilder("iota")
    ops.Iota(b, Shape.array_shape(PrimitiveType.F32, (2, 3)), iota_dimension=1)
    assert _exec(b, backend=backend)[0].tolist() == [[0.0, 1.0, 2.0]] * 2


def test_iota_rounds_like_convert_and_constraints():
    b = XlaBuilder("iota")
    ops.Iota(b, "f8e5m2[10]", 0)
    assert _exec(b)[0].astype(float).tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 8]
    for shape, dim, cid in (("pred[3]", 0, "C1"), ("token[]", 0, "C1"), ("s32[4,8]", 2, "C2"), ("f32[]", 0, "C2"),
                            ("s32[3]", -1, "C2")):
        with pytest.raises(OpError) as e:
            ops.Iota(XlaBuilder("e"), shape, dim)
        assert e.value.constraint == cid


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_tuple_and_get_tuple_element(backend):
    b = XlaBuilder("tuple")
    v = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, (10,)), "v")
    s = ops.Parameter(b, 1, Shape.array_shape(PrimitiveType.S32, ()), "s")
    t = ops.Tuple(b, [v, s])
    assert t.shape() == Shape.tuple_shape([v.shape(), s.shape()])
    nested = ops.Tuple(b, [t, v])
    ops.GetTupleElement(ops.GetTupleElement(nested, 0), 1)
    args = [np.arange(10, dtype=np.float32), np.int32(5).reshape(())]
    out = _exec(b, args, backend)
    assert len(out) == 1 and out[0].dtype == np.int32 and out[0].tolist() == 5
    b2 = XlaBuilder("tuple_root")
    x = ops.Parameter(b2, 0, Shape.array_shape(PrimitiveType.F32, (2,)), "x")
    ops.Tuple(b2, [x, x])
    out = _exec(b2, [np.array([1.5, -2], np.float32)], backend)
    assert [o.tolist() for o in out] == [[1.5, -2.0], [1.5, -2.0]]


def test_get_tuple_element_constraints():
    b = XlaBuilder("gte")
    x = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, (2,)), "x")
    with pytest.raises(OpError) as e:
        ops.GetTupleElement(x, 0)
    assert e.value.constraint == "C1"
    t = ops.Tuple(b, [x])
    for index in (1, -1):
        with pytest.raises(OpError) as e:
            ops.GetTupleElement(t, index)
        assert e.value.constraint == "C2"


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_broadcast_doc_example(backend):
    b = XlaBuilder("broadcast")
    ops.Broadcast(ops.Constant(b, np.float32(2.0)), [2, 3])
    out = _exec(b, backend=backend)[0]
    assert out.dtype == np.float32 and out.tolist() == [[2.0] * 3] * 2
    b = XlaBuilder("broadcast")
    ops.Broadcast(ops.Constant(b, np.array([1, 2], np.int32)), (3,))
    assert _exec(b, backend=backend)[0].tolist() == [[1, 2]] * 3


def test_broadcast_constraints():
    b = XlaBuilder("broadcast")
    x = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.F32, (2,)), "x")
    with pytest.raises(OpError) as e:
        ops.Broadcast(x, [2, -1])
    assert e.value.constraint == "C1"
    tok = ops.Parameter(b, 1, Shape.token_shape(), "t")
    with pytest.raises(OpError) as e:
        ops.Broadcast(tok, [2])
    assert e.value.constraint == "C2"


def test_broadcast_in_dim_document_composition():
    b = XlaBuilder("bid")
    ops.BroadcastInDim(ops.Constant(b, np.array([[5, 6]], np.int32)), [4, 1, 2], [1, 2])
    assert _exec(b)[0].tolist() == [[[5, 6]]] * 4
    with pytest.raises(OpError) as e:
        ops.BroadcastInDim(ops.Constant(b, np.zeros((7, 2, 5), np.float32)), [7, 2, 6], [0, 1, 2])
    assert e.value.constraint == "C5"


def test_jax_refuses_a_broadcast_larger_than_memory_up_front():
    """Broadcast to f32[2^31, 2^31] (16 EiB) builds, and jax ended the process allocating it (SIGABRT); supports()
    now names the op, the size and the limit. In a subprocess, so that a regression fails only this test."""
    from tests.support.isolated import run_isolated
    proc = run_isolated("""
        import numpy as np
        from backend import UnsupportedError, XlaBuilder, get_backend, ops
        b = XlaBuilder("huge")
        ops.Broadcast(ops.Constant(b, np.float32(1)), [2**31, 2**31])
        print(get_backend("jax").supports(b.build()))
        try:
            get_backend("jax").execute(b.build(), [])
        except UnsupportedError as e:
            print("refused", e.op)
    """)
    assert proc.returncode == 0, proc.stderr[-2000:]
    reason, refused = proc.stdout.splitlines()
    assert reason.startswith("Broadcast: its value f32[2147483648,2147483648] takes 16.0 EiB, more than ")
    assert refused == "refused Broadcast"
