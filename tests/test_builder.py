"""The xla_client-style builder surface: the issue's example, text form, program shape, errors."""

import numpy as np
import pytest

from backend import OpError, PrimitiveType, Shape, UnsupportedError, XlaBuilder, get_backend, ops
from backend.backends import register_backend


def _bias_add():
    c = XlaBuilder("bias_add")
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (2, 3)), "x")
    v = ops.Parameter(c, 1, Shape.array_shape(PrimitiveType.F32, (3,)), "v")
    ops.Add(x, v, broadcast_dimensions=(1,))
    return c.build()


@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_issue_example(backend):
    comp = _bias_add()
    out = get_backend(backend).execute(comp, [np.ones((2, 3), np.float32), np.arange(3, dtype=np.float32)])
    assert len(out) == 1
    np.testing.assert_array_equal(out[0], [[1, 2, 3], [1, 2, 3]])
    assert out[0].dtype == np.float32


def test_text_form_and_program_shape():
    comp = _bias_add()
    text = comp.as_hlo_text()
    assert text.startswith("HloModule bias_add, entry_computation_layout={(f32[2,3]{1,0}, f32[3]{0})->f32[2,3]{1,0}}")
    assert "ROOT add.3 = f32[2,3]{1,0} add(x.0, broadcast-in-dim.2)" in text
    assert "broadcast-in-dim(v.1), out_dim_size={2,3}, broadcast_dimensions={1}" in text
    assert "  x.0 = f32[2,3]{1,0} parameter(0)\n" in text
    ps = comp.program_shape()
    assert ps.parameter_names() == ["x", "v"]
    assert ps.result_shape() == Shape.array_shape(PrimitiveType.F32, (2, 3))


def test_root_defaults_to_last_op_and_can_be_chosen():
    b = XlaBuilder("two")
    x = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.S32, (2,)), "x")
    first = ops.Add(x, x)
    ops.Add(first, x)
    assert get_backend("reference").execute(b.build(), [np.array([1, 2], np.int32)])[0].tolist() == [3, 6]
    assert get_backend("reference").execute(b.build(first), [np.array([1, 2], np.int32)])[0].tolist() == [2, 4]


def test_64_bit_types_on_jax_without_configuration():
    b = XlaBuilder("wide")
    x = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.S64, (2,)), "x")
    ops.Add(x, x)
    out = get_backend("jax").execute(b.build(), [np.array([2**40, -(2**62)], np.int64)])[0]
    assert out.dtype == np.int64 and out.tolist() == [2**41, -(2**63)]


def test_non_op_argument_is_our_error():
    with pytest.raises(OpError) as e:
        ops.Add(np.ones(3), np.ones(3))
    assert e.value.constraint == "arg-type" and e.value.arg == "lhs"


def test_operands_of_different_builders():
    a, b = XlaBuilder("a"), XlaBuilder("b")
    x = ops.Parameter(a, 0, Shape.scalar_shape(PrimitiveType.F32), "x")
    y = ops.Parameter(b, 0, Shape.scalar_shape(PrimitiveType.F32), "y")
    with pytest.raises(OpError, match="different builders"):
        ops.Add(x, y)


def test_unknown_keyword():
    b = XlaBuilder("k")
    x = ops.Parameter(b, 0, Shape.scalar_shape(PrimitiveType.F32), "x")
    with pytest.raises(OpError, match="unknown argument 'broadcast_dims'"):
        ops.Add(x, x, broadcast_dims=())


def test_wrong_arguments_at_execute():
    comp = _bias_add()
    with pytest.raises(OpError, match="argument 1 must be f32\\[3\\]"):
        get_backend("jax").execute(comp, [np.ones((2, 3), np.float32), np.ones(4, np.float32)])
    with pytest.raises(OpError, match="expects 2 arguments"):
        get_backend("reference").execute(comp, [np.ones((2, 3), np.float32)])


def test_parameter_gap_is_an_error():
    b = XlaBuilder("gap")
    ops.Parameter(b, 1, Shape.scalar_shape(PrimitiveType.F32), "x")
    with pytest.raises(OpError, match="without gaps"):
        b.build()


def test_jax_backend_says_what_it_cannot_run():
    b = XlaBuilder("s1")
    x = ops.Parameter(b, 0, Shape.array_shape(PrimitiveType.S1, (2,)), "x")
    ops.Add(x, x)
    comp = b.build()
    assert "jax cannot hold s1" in get_backend("jax").supports(comp)
    assert get_backend("reference").supports(comp) is None


class _Doubler:
    """A third-party backend: runs everything on the reference and doubles float results."""

    name = "doubler"

    def supports(self, computation):
        return None

    def execute(self, computation, arguments, replicas=1):
        return [2 * np.asarray(v) for v in get_backend("reference").execute(computation, arguments)]


DOUBLER = _Doubler()


def test_third_party_backend_by_module_attribute():
    backend = get_backend("tests.test_builder:DOUBLER")
    assert backend is DOUBLER
    register_backend("doubler", _Doubler)
    assert get_backend("doubler").name == "doubler"


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        get_backend("nope")


def test_unsupported_error_type():
    err = UnsupportedError("jax", "Add", "why")
    assert "does not support Add: why" in str(err)


def test_registering_a_backend_first_keeps_the_built_in_ones():
    """register_backend before any get_backend: the built-in backends are still there (they were hidden)."""
    import subprocess
    import sys

    code = ("from backend import available_backends, get_backend, register_backend\n"
            "from backend.reference.executor import ReferenceBackend\n"
            "register_backend('mine', ReferenceBackend)\n"
            "print(sorted({'mine', 'reference', 'jax', 'pallas'} & set(available_backends())),"
            " get_backend('reference').name, get_backend('mine').name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['jax',", "'mine',", "'pallas',", "'reference']", "reference", "reference"]
