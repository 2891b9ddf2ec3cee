"""The program corpus (conformance/programs/): every program, exported from jax, passes on reference and jax, and
a backend with one deliberately wrong op is localised to that op inside each program (inside the loop body for the
LSTM), with a reproduction that runs as printed."""

import contextlib
import io

import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from backend import get_backend
from backend.backends import register_backend
from backend.jax_backend import LOWERINGS
from conformance.check_program import check_program, load_inputs, load_program, text_report
from conformance.programs import names, paths
from conformance.programs.sources import PROGRAMS
from tests.support.mutant_backends import Mutant, mutant_backend

CORPUS = ["attention", "conv", "fft_conv", "linalg", "lstm", "mlp", "random_rbg", "resnet_block", "sampling",
          "transformer_grad"]


def _program(name):
    mlir, npz = paths(name)
    comp = load_program(mlir)
    return comp, load_inputs(npz, comp)


def _tanh_rational(ctx, x, *rest):
    return x / (1 + jnp.abs(x))  # a cheap "tanh": a sigmoid-shaped rational function


def _rsqrt_high(ctx, x):
    return lax.rsqrt(x) * 1.01


def _srl_one_more(ctx, lhs, rhs):
    return lax.shift_right_logical(lhs, rhs + jnp.ones_like(rhs))


def _fft_scaled(ctx, x):
    return LOWERINGS.get("Fft")(ctx, x) * 1.01


def _max_as_min(ctx, lhs, rhs):
    return LOWERINGS.get("Min")(ctx, lhs, rhs)


#: Per program, the backend with one wrong op, the op it breaks, and where it is found.
BROKEN = {
    "mlp": ("sub_swapped", "Sub", ""),
    "conv": ("select_uniform_pred_swapped", "Select", ""),
    "attention": ("sub_swapped", "Sub", ""),
    "lstm": (Mutant("tanh_rational", "Tanh", "tanh(x) as x / (1 + |x|)", _tanh_rational), "Tanh", "while."),
    "sampling": ("srl_arithmetic", "ShiftRightLogical", "while."),  # inside the threefry loop
    "linalg": ("iota_from_one", "Iota", ""),
    "transformer_grad": (Mutant("rsqrt_high", "Rsqrt", "rsqrt 1% high", _rsqrt_high), "Rsqrt", ""),
    "random_rbg": (Mutant("srl_one_more", "ShiftRightLogical", "shifts one bit more", _srl_one_more),
                   "ShiftRightLogical", ""),
    "fft_conv": (Mutant("fft_scaled", "Fft", "every transform 1% large", _fft_scaled), "Fft", ""),
    "resnet_block": (Mutant("max_as_min", "Max", "Max computes Min", _max_as_min), "Max", ""),
}


def test_the_corpus_has_its_programs_and_their_sources():
    assert names() == CORPUS
    assert sorted(PROGRAMS) == CORPUS
    for name in CORPUS:
        mlir, npz = paths(name)
        assert mlir.read_text().startswith(f"// {name}: ")
        assert npz.exists()


@pytest.mark.parametrize("name", CORPUS)
@pytest.mark.parametrize("backend", ["reference", "jax"])
def test_every_program_passes(name, backend):
    comp, inputs = _program(name)
    report = check_program(comp, get_backend(backend), inputs, name)
    assert report.status == "passed", report.outputs
    assert report.outputs and all(o["status"] == "passed" for o in report.outputs)
    assert report.seconds < 60


def test_the_reference_result_of_a_program_is_jaxs():
    comp, inputs = _program("mlp")
    fn = PROGRAMS["mlp"][0]
    want = fn(*inputs)
    got = get_backend("reference").execute(comp, inputs)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    np.testing.assert_array_equal(got[-1], want[2])  # the argmax


@pytest.mark.parametrize("name", CORPUS)
def test_a_broken_op_is_localised_in_every_program(name):
    get_backend("reference"), get_backend("jax")  # the built-in backends first (register_backend skips them after)
    broken, opcode, inside = BROKEN[name]
    backend = mutant_backend(broken) if isinstance(broken, str) else broken.backend()
    register_backend(backend.name, lambda: backend)
    comp, inputs = _program(name)
    report = check_program(comp, backend, inputs, name)
    assert report.status == "failed", text_report(report)
    found = report.localised
    assert found is not None and found.opcode == opcode, (found, report.message)
    assert found.name.startswith(inside)
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(found.reproduction, namespace)
    assert printed.getvalue().startswith("[")
    got = backend.execute(namespace["computation"], namespace["args"])
    want = get_backend("reference").execute(namespace["computation"], namespace["args"])
    assert any(not np.array_equal(np.asarray(g), np.asarray(w)) for g, w in zip(got, want))
