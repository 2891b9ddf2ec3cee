"""The shapes-and-layout document's worked examples; bounded dynamic dimensions in the Shape API, printed and parsed."""

import numpy as np
import pytest

from backend import Layout, OpError, PrimitiveType, Shape, XlaBuilder, ops
from backend.hlo.shape import canonical_dimension, linear_index, multi_index, to_linear_memory
from specs.loader import parse_shape

F32, S32 = PrimitiveType.F32, PrimitiveType.S32

# The document's 2x3 array:  a b c / d e f
ARRAY = np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object)


def test_minor_to_major_0_1_is_column_major():
    shape = Shape.array_shape(PrimitiveType.F32, (2, 3), layout=(0, 1))
    assert list(to_linear_memory(ARRAY, shape)) == ["a", "d", "b", "e", "c", "f"]


def test_minor_to_major_1_0_is_row_major():
    shape = Shape.array_shape(PrimitiveType.F32, (2, 3), layout=(1, 0))
    assert list(to_linear_memory(ARRAY, shape)) == ["a", "b", "c", "d", "e", "f"]


def test_default_layout_is_major_to_minor():
    assert Shape.array_shape(PrimitiveType.F32, (2, 3, 4)).layout().minor_to_major == (2, 1, 0)
    assert list(to_linear_memory(ARRAY, Shape.array_shape(PrimitiveType.F32, (2, 3)))) == list("abcdef")


def test_padded_3x5_column_major():
    # "a d 0 b e 0 c f 0 0 0 0 0 0 0": padded to [3, 5] with padding value 0, minor_to_major [0, 1].
    shape = Shape.array_shape(PrimitiveType.F32, (2, 3), layout=Layout((0, 1), padded_dimensions=(3, 5),
                                                                        padding_value=0))
    assert list(to_linear_memory(ARRAY, shape)) == ["a", "d", 0, "b", "e", 0, "c", "f", 0, 0, 0, 0, 0, 0, 0]


def test_padded_equivalent_array():
    # ... equivalent to the array  a b c 0 0 / d e f 0 0 / 0 0 0 0 0  in the same dimension order.
    padded = np.array([["a", "b", "c", 0, 0], ["d", "e", "f", 0, 0], [0, 0, 0, 0, 0]], dtype=object)
    same_order = Shape.array_shape(PrimitiveType.F32, (3, 5), layout=(0, 1))
    padded_shape = Shape.array_shape(PrimitiveType.F32, (2, 3), layout=Layout((0, 1), (3, 5)))
    assert list(to_linear_memory(padded, same_order)) == list(to_linear_memory(ARRAY, padded_shape))


@pytest.mark.parametrize("layout", [(0, 1), (1, 0)])
def test_linear_and_multi_index_round_trip(layout):
    shape = Shape.array_shape(PrimitiveType.F32, (2, 3), layout=layout)
    memory = list(to_linear_memory(ARRAY, shape))
    for i in range(2):
        for j in range(3):
            lin = linear_index(shape, (i, j))
            assert memory[lin] == ARRAY[i, j]
            assert multi_index(shape, lin) == (i, j)


def test_linear_index_with_padding():
    shape = Shape.array_shape(PrimitiveType.F32, (2, 3), layout=Layout((0, 1), (3, 5)))
    assert linear_index(shape, (1, 2)) == 7  # c f: 'f' is at position 7 of "a d 0 b e 0 c f ..."
    with pytest.raises(ValueError, match="padding"):
        multi_index(shape, 2)


def test_negative_dimensions():
    # For a 3-D array [A x B x C], dimension -1 has size C and -2 has size B.
    assert canonical_dimension(-1, 3) == 2
    assert canonical_dimension(-2, 3) == 1
    with pytest.raises(ValueError):
        canonical_dimension(3, 3)


def test_shape_text_and_tuples():
    s = Shape.array_shape(np.float32, (2, 3))
    assert str(s) == "f32[2,3]" and s.to_string() == "f32[2,3]{1,0}"
    t = Shape.tuple_shape([s, Shape.scalar_shape(PrimitiveType.S32)])
    assert t.is_tuple() and str(t) == "(f32[2,3], s32[])"
    assert Shape.token_shape().is_token()


def test_bad_layouts_raise():
    with pytest.raises(ValueError):
        Layout((0, 0))
    with pytest.raises(ValueError):
        Shape.array_shape(PrimitiveType.F32, (2, 3), layout=(0,))
    with pytest.raises(ValueError):
        Layout((0, 1), padded_dimensions=(3,))


def _dyn(dims, dynamic, etype=F32):
    return Shape.array_shape(etype, dims, dynamic_dimensions=dynamic)


# -- bounded dynamic dimensions: the Shape API, printing and parsing ----------------------------------------
def test_dynamic_dimensions_api():
    s = _dyn((5, 3), [True, False])
    assert s.is_dynamic_dimension(0) and not s.is_dynamic_dimension(1)
    assert s.dynamic_dimensions() == (True, False)
    assert not s.is_static() and s.is_dynamic()
    assert s.dimensions() == (5, 3)  # the bound
    assert Shape.array_shape(F32, (5, 3)).is_static()
    assert Shape.array_shape(F32, (5, 3)).dynamic_dimensions() == (False, False)
    assert Shape.tuple_shape([Shape.scalar_shape(F32), s]).is_static() is False


def test_printing_as_xla_does():
    assert str(_dyn((5, 3), [True, False])) == "f32[<=5,3]"
    assert _dyn((5, 3), [True, False]).to_string() == "f32[<=5,3]{1,0}"
    assert str(_dyn((2, 4), [False, True], S32)) == "s32[2,<=4]"
    assert str(Shape.tuple_shape([_dyn((5,), [True])])) == "(f32[<=5])"


def test_equality_includes_dynamism():
    assert _dyn((5, 3), [True, False]) == _dyn((5, 3), [True, False])
    assert _dyn((5, 3), [True, False]) != Shape.array_shape(F32, (5, 3))
    assert _dyn((5, 3), [True, False]) != _dyn((5, 3), [False, True])
    assert len({_dyn((5,), [True]), Shape.array_shape(F32, (5,))}) == 2


def test_invalid_dynamic_dimensions():
    with pytest.raises(ValueError, match="one entry per dimension"):
        Shape.array_shape(F32, (5, 3), dynamic_dimensions=[True])
    with pytest.raises(ValueError, match="sequence of bools"):
        Shape.array_shape(F32, (5,), dynamic_dimensions=[1])
    with pytest.raises(ValueError, match="out of range"):
        _dyn((5,), [True]).is_dynamic_dimension(1)


def test_builder_reads_dynamic_shape_text_and_turns_a_bad_one_into_op_error():
    b = XlaBuilder("text")
    assert ops.Parameter(b, 0, "f32[<=5,3]", "x").shape() == _dyn((5, 3), [True, False])
    with pytest.raises(OpError, match="not a shape"):
        ops.Parameter(b, 1, "f32[<5,3]", "y")


def test_parse_shape():
    assert parse_shape("f32[<=5,3]") == _dyn((5, 3), [True, False])
    assert parse_shape("s32[2, <=4]") == _dyn((2, 4), [False, True], S32)
    assert parse_shape("f32[5,3]").is_static()
    for bad in ("f32[<5]", "f32[<=]", "f32[=3]", "f32[>=3]"):
        with pytest.raises(ValueError, match="not a shape"):
            parse_shape(bad)


@pytest.mark.parametrize("element_type", [None, object(), 999, -1, "f31", 1.5, True, [1], np.dtype("O"),
                                          PrimitiveType.TUPLE, PrimitiveType.PRIMITIVE_TYPE_INVALID])
def test_array_shape_malformed_element_type_is_an_op_error(element_type):
    with pytest.raises(OpError) as info:
        Shape.array_shape(element_type, (2,))
    assert (info.value.op, info.value.constraint, info.value.arg) == ("Shape.array_shape", "arg-type", "element_type")


@pytest.mark.parametrize("dims", [None, 3, "ab", [1.5], [True], [float("nan")], [[1]], [object()], {1: 2}, [-1]])
def test_array_shape_malformed_dimensions_are_an_op_error(dims):
    with pytest.raises(OpError) as info:
        Shape.array_shape(F32, dims)
    assert (info.value.op, info.value.arg) == ("Shape.array_shape", "dims")


@pytest.mark.parametrize("layout", [[5], "x", 3, [0.5], [[0]], [0, 0], [1, 0, 2]])
def test_array_shape_malformed_layout_is_an_op_error(layout):
    with pytest.raises(OpError) as info:
        Shape.array_shape(F32, (2, 3), layout)
    assert (info.value.op, info.value.arg) == ("Shape.array_shape", "layout")


def test_array_shape_accepts_numpy_ints_and_dtypes():
    assert str(Shape.array_shape(np.dtype("int32"), [np.int64(2), 3])) == "s32[2,3]"
    assert str(Shape.array_shape(np.int32(11), (2,))) == "f32[2]"  # PrimitiveType 11 is F32


@pytest.mark.parametrize("shapes", [None, 3, "ab", [None], [1], object(), Shape.scalar_shape(F32)])
def test_tuple_shape_of_non_shapes_is_an_op_error(shapes):
    with pytest.raises(OpError) as info:
        Shape.tuple_shape(shapes)
    assert (info.value.op, info.value.arg) == ("Shape.tuple_shape", "shapes")


def _nested(depth):
    shape = Shape.scalar_shape(F32)
    for _ in range(depth):
        shape = Shape.tuple_shape([shape])
    return shape


def test_tuples_nest_up_to_64_deep_and_run():
    """64 levels print, hash, compare and run on both backends (a deep value goes in and comes out)."""
    from backend import get_backend
    shape = _nested(64)
    assert str(shape) == "(" * 64 + "f32[]" + ")" * 64 and hash(shape) == hash(_nested(64))
    assert len(shape.leaf_shapes()) == 1
    b = XlaBuilder("deep")
    ops.Parameter(b, 0, shape, "p")
    value = np.float32(3)
    for _ in range(64):
        value = (value,)
    for backend in ("reference", "jax"):
        out = get_backend(backend).execute(b.build(), [value])[0]
        for _ in range(63):
            out = out[0]
        assert out == (np.float32(3),)


@pytest.mark.parametrize("depth", [65, 500])
def test_tuples_nested_deeper_than_64_are_refused_not_a_recursion_error(depth):
    with pytest.raises(OpError, match="tuples nest at most 64 deep"):
        _nested(depth)
    b = XlaBuilder("deep")
    x = ops.Parameter(b, 0, Shape.scalar_shape(F32), "x")
    with pytest.raises(OpError, match="at most 64 deep"):
        for _ in range(depth):
            x = ops.Tuple(b, [x])
    value = np.float32(1)
    for _ in range(depth):
        value = (value,)
    with pytest.raises(OpError, match="at most 64 deep"):
        ops.Constant(XlaBuilder("k"), value)
    text = "(" * depth + "f32[]" + ")" * depth
    with pytest.raises(OpError, match="at most 64 deep"):
        ops.Parameter(XlaBuilder("p"), 0, text, "p")
    with pytest.raises(ValueError, match="at most 64 deep"):
        parse_shape(text)


def test_shapes_made_without_init_still_nest():
    """A Shape unpickled from a version without the depth slot (a spec cache written by older code) nests into a
    tuple as before: its depth is counted."""
    old = object.__new__(Shape)
    for name, value in (("_etype", PrimitiveType.TUPLE), ("_dims", ()), ("_layout", None), ("_dynamic", ()),
                        ("_tuple", (Shape.scalar_shape(F32),))):
        object.__setattr__(old, name, value)
    assert str(Shape.tuple_shape([old, Shape.scalar_shape(S32)])) == "((f32[]), s32[])"
