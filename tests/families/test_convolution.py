"""Hand-computed values and constraint ids of the convolution family; its Pallas lowering."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import jax
import numpy as np
import pytest

import specs
from backend import XlaBuilder, ops
from backend.backends import get_backend
from backend.errors import OpError
from backend.hlo.attribute_types import default_conv_dimension_numbers
from backend.hlo.shape import Shape
from backend.pallas_backend import PALLAS_LOWERINGS
from backend.rules.convolution import CONV_OPS, general_arguments, window_padding_type_to_pad_values
from conformance import cases_for, run_cases
from conformance.runner import IMPL_DEFINED, PASSED
from tests.support.running import op_computation, run_op


def test_window_padding_type_to_pad_values() -> None:
    # SAME: output ceil(s / t); the odd padding element goes high.
    assert window_padding_type_to_pad_values("SAME", [4, 5, 5, 4], [2, 3, 3, 1], [1, 1, 2, 2]) == \
        [(0, 1), (1, 1), (1, 1), (0, 0)]
    assert window_padding_type_to_pad_values("valid", [4, 5], [2, 3], [1, 2]) == [(0, 0), (0, 0)]
    assert window_padding_type_to_pad_values("same", [1], [4], [1]) == [(1, 2)]
    with pytest.raises(ValueError):
        window_padding_type_to_pad_values("FULL", [4], [2], [1])
    with pytest.raises(OpError):  # the project's error for a malformed argument (xla_client raised TypeError)
        window_padding_type_to_pad_values(1, [4], [2], [1])  # type: ignore[arg-type]


def test_narrow_ops_canonicalize_to_conv_general_dilated() -> None:
    ctx = SimpleNamespace(attrs={"window_strides": (2,), "padding": "SAME", "feature_group_count": 1,
                                 "batch_group_count": 1})
    args = general_arguments(ctx, (1, 1, 5), (1, 1, 3))
    assert args.padding == ((1, 1),)
    assert args.lhs_dilation == args.rhs_dilation == (1,)
    assert args.window_reversal == (False,)
    assert args.dimension_numbers == default_conv_dimension_numbers(1)


CASES = [
    # op, lhs, rhs, attrs, expected (worked out by hand)
    ("Conv", np.float32([[[1, 2, 3, 4]]]), np.float32([[[1, 10]]]), {"window_strides": [1], "padding": "SAME"},
     np.float32([[[21, 32, 43, 4]]])),
    ("ConvWithGeneralPadding", np.int32([[[1, 2]]]), np.int32([[[1, 10]]]),
     {"window_strides": [1], "padding": [[2, 3]]}, np.int32([[[0, 10, 21, 2, 0, 0]]])),
    ("ConvWithGeneralDimensions", np.float32([[[1, 10], [2, 20], [3, 30]]]), np.float32([[[1], [0]], [[0], [1]]]),
     {"window_strides": [1], "padding": "VALID", "dimension_numbers": ("NWC", "WIO", "NWC")},
     np.float32([[[21], [32]]])),
    ("ConvGeneral", np.float32([[[1, 2, 3, 4, 5]]]), np.float32([[[1, 1]]]),
     {"window_strides": [1], "padding": [[-1, -2]], "dimension_numbers": ("NCW", "OIW", "NCW")},
     np.float32([[[5]]])),
    ("ConvGeneralDilated", np.float32([[[1, 2, 3]]]), np.float32([[[1, 1]]]),
     {"window_strides": [1], "padding": [[1, 1]], "lhs_dilation": [2], "rhs_dilation": [1]},
     np.float32([[[1, 1, 2, 2, 3, 3]]])),
    ("ConvGeneralDilated", np.float32([[[1, 2, 3, 4, 5]]]), np.float32([[[1, 10]]]),
     {"window_strides": [1], "padding": [[0, 0]], "lhs_dilation": [1], "rhs_dilation": [2],
      "window_reversal": [True]}, np.float32([[[13, 24, 35]]])),
    ("ConvGeneralDilated", np.float32([[[1, 2]], [[3, 4]]]), np.float32([[[1]], [[10]]]),
     {"window_strides": [1], "padding": [[0, 0]], "lhs_dilation": [1], "rhs_dilation": [1],
      "batch_group_count": 2}, np.float32([[[1, 2], [30, 40]]])),
    ("Conv", np.float32([[[1, 2]]]), np.float32([[[1, np.inf]]]), {"window_strides": [1], "padding": "SAME"},
     np.float32([[[np.inf, 2]]])),  # padding contributes nothing, even against inf
]


@pytest.mark.parametrize("backend", ["reference", "jax"])
@pytest.mark.parametrize("op,lhs,rhs,attrs,expected", CASES)
def test_hand_computed_values(backend: str, op: str, lhs: np.ndarray, rhs: np.ndarray, attrs: dict[str, Any],
                              expected: np.ndarray) -> None:
    out = run_op(backend, op, lhs, rhs, **attrs)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def test_output_shape_follows_dimension_numbers() -> None:
    comp = op_computation("ConvGeneral", Shape.array_shape("f32", (2, 7, 3)), Shape.array_shape("f32", (5, 3, 3)),
                          window_strides=[2], padding=[[1, 0]], dimension_numbers=("NWC", "OIW", "WCN"))
    assert comp.root_instruction.shape == Shape.array_shape("f32", (3, 5, 2))


ERRORS = [
    ("Conv", "f32[1,1,3]", "f32[1,1,2]", {"window_strides": [1], "padding": "FULL"}, "C4"),
    ("Conv", "f32[1,3,3]", "f32[1,2,2]", {"window_strides": [1], "padding": "VALID"}, "C6"),
    ("ConvWithGeneralPadding", "f32[1,1,3]", "f32[1,1,1]", {"window_strides": [1], "padding": [[-4, 0]]}, "C4"),
    ("ConvWithGeneralPadding", "f32[3,1,3]", "f32[2,1,2]",
     {"window_strides": [1], "padding": [[0, 0]], "batch_group_count": 2}, "C8"),
    ("ConvWithGeneralDimensions", "f32[1,3,1]", "f32[2,1,1]",
     {"window_strides": [1], "padding": "VALID", "dimension_numbers": ("NWC", "WIO", "NXC")}, "C10"),
    ("ConvGeneral", "f32[1,3,1]", "f32[2,1,1]",
     {"window_strides": [0], "padding": [[0, 0]], "dimension_numbers": ("NWC", "WIO", "NWC")}, "C3"),
    ("ConvGeneralDilated", "f32[1,1,3]", "f32[1,1,2]",
     {"window_strides": [1], "padding": [[0, 0]], "lhs_dilation": [0], "rhs_dilation": [1]}, "C11"),
    ("ConvGeneralDilated", "f32[1,1,3]", "f32[1,1,2]",
     {"window_strides": [1], "padding": [[0, 0]], "lhs_dilation": [1], "rhs_dilation": [1],
      "window_reversal": [True, True]}, "C12"),
    ("ConvGeneralDilated", "f32[2,2,3]", "f32[2,1,1]",
     {"window_strides": [1], "padding": [[0, 0]], "lhs_dilation": [1], "rhs_dilation": [1],
      "feature_group_count": 2, "batch_group_count": 2}, "C5"),
    ("ConvGeneralDilated", "s32[1,1,3]", "s32[1,1,2]",
     {"window_strides": [1], "padding": [[0, 0]], "lhs_dilation": [1], "rhs_dilation": [1],
      "preferred_element_type": "c64"}, "C9"),
]


@pytest.mark.parametrize("op,lhs,rhs,attrs,constraint", ERRORS)
def test_error_constraint_ids(op: str, lhs: str, rhs: str, attrs: dict[str, Any], constraint: str) -> None:
    from specs.loader import parse_shape

    with pytest.raises(OpError) as info:
        op_computation(op, parse_shape(lhs), parse_shape(rhs), **attrs)
    assert info.value.constraint == constraint


def test_conv_ops_use_the_kernel_lowering() -> None:
    assert set(CONV_OPS) <= set(PALLAS_LOWERINGS.names())


@pytest.mark.parametrize("op", CONV_OPS)
def test_pallas_golden_and_generated_cases(op: str) -> None:
    cases = cases_for(specs.get(op))
    golden = [c for c in cases if c.kind == "golden"][:4]
    generated = [c for c in cases if c.kind == "generated" and ("/f32/" in c.id or "/bf16/" in c.id)][:2]
    results = run_cases(golden + generated, get_backend("pallas"))
    bad = [f"{r.case.id}: {r.message}" for r in results if r.status not in (PASSED, IMPL_DEFINED)]
    assert not bad, "\n".join(bad)


def test_builder_convolution_lowers_to_a_pallas_kernel() -> None:
    comp = op_computation("ConvGeneral", Shape.array_shape("bf16", (1, 8, 8, 128)),
                          Shape.array_shape("bf16", (3, 3, 128, 128)), window_strides=[1, 1], padding=[[1, 1], [1, 1]],
                          dimension_numbers=("NHWC", "HWIO", "NHWC"))
    fn = get_backend("pallas").lower(comp)
    args = [jax.ShapeDtypeStruct((1, 8, 8, 128), jax.numpy.bfloat16),
            jax.ShapeDtypeStruct((3, 3, 128, 128), jax.numpy.bfloat16)]
    assert "tpu_custom_call" in fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text()


# -- window attributes XLA's builder takes empty -------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_empty_strides_padding_and_dilations_mean_the_defaults(backend):
    """ConvGeneralDilated, ConvGeneral and ConvWithGeneralPadding with empty window_strides / padding /
    lhs_dilation / rhs_dilation / window_reversal (XLA's InferWindowFromDimensions: the default per spatial
    dimension): lhs [1, 2, 3, 4] with the kernel [1, 10] gives 1 + 20, 2 + 30, 3 + 40."""
    b = XlaBuilder("conv")
    lhs = ops.Constant(b, np.array([1, 2, 3, 4], np.float32).reshape(1, 1, 4))
    rhs = ops.Constant(b, np.array([1, 10], np.float32).reshape(1, 1, 2))
    dn = default_conv_dimension_numbers(1)
    results = [ops.ConvGeneralDilated(lhs, rhs, [], [], [], [], None, window_reversal=[]),
               ops.ConvGeneral(lhs, rhs, [], [], dn), ops.ConvWithGeneralPadding(lhs, rhs, [], [])]
    out = get_backend(backend).execute(b.build(ops.Tuple(b, results)), [])
    for value in out:
        np.testing.assert_array_equal(value.reshape(-1), [21, 32, 43])


def test_conv_strides_of_another_length_are_still_refused():
    b = XlaBuilder("conv")
    lhs = ops.Constant(b, np.zeros((1, 1, 4), np.float32))
    with pytest.raises(OpError) as e:
        ops.ConvGeneralDilated(lhs, ops.Constant(b, np.zeros((1, 1, 2), np.float32)), [1, 1], [], [], [], None)
    assert (e.value.constraint, e.value.arg) == ("C3", "window_strides")
