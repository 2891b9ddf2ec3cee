"""Export: StableHLO text and bytecode, jax's portable artifact for other platforms, the round trip
through a separate process that has jax but not this package, and the command line form."""

import os
import re
import shlex
import subprocess
import sys
import venv
from pathlib import Path

import jax
import numpy as np
import pytest

from backend import OpError, PrimitiveType, Shape, UnsupportedError, XlaBuilder, get_backend, ops
from backend.export import (
    argument_specs,
    export,
    exported,
    link_stablehlo_modules,
    main,
    stablehlo_module,
    stablehlo_text,
    stablehlo_unsupported_reason,
    with_exact_forms,
)
from backend.hlo.bounded_results import DynamicResult, static_stand_in

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def bias_relu():
    c = XlaBuilder("bias_relu")
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (2, 3)), "x")
    v = ops.Parameter(c, 1, Shape.array_shape(PrimitiveType.F32, (3,)), "v")
    ops.Max(ops.Add(x, v, broadcast_dimensions=(1,)), ops.Constant(c, np.float32(0)))
    return c.build()


def pair_f64():
    c = XlaBuilder("pair")
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F64, (3,)), "x")
    ops.Tuple(c, [ops.Mul(x, x), ops.Lt(x, ops.Constant(c, np.float64(1.5)))])
    return c.build()


def test_stablehlo_text_names_the_ops_and_types():
    text = bias_relu().as_stablehlo_text()
    assert "func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>)" in text
    for op in ("stablehlo.broadcast_in_dim", "stablehlo.add", "stablehlo.maximum"):
        assert op in text
    assert "loc(" not in text  # no debug locations


@pytest.mark.parametrize("platform", ["tpu", "cuda"])
def test_lowers_for_accelerators_on_the_cpu(platform):
    e = exported(bias_relu(), (platform,))
    assert e.platforms == (platform,)
    assert "stablehlo.maximum" in e.mlir_module()
    assert "tensor<2x3xf32>" in bias_relu().as_stablehlo_text(platform)


def test_bytecode_is_a_portable_artifact():
    blob = bias_relu().as_stablehlo_bytecode()
    assert blob[:4] == b"ML\xefR"  # MLIR bytecode
    assert b"StableHLO" in blob[:32]  # the versioned portable-artifact producer


def test_artifact_deserializes_with_its_signature_and_platforms():
    e = jax.export.deserialize(bytearray(export(bias_relu())))
    assert e.platforms == ("cpu", "cuda", "tpu")
    assert [(str(a.dtype), a.shape) for a in e.in_avals] == [("float32", (2, 3)), ("float32", (3,))]
    x = np.array([[-1, 0, 1], [2, -3, 4]], np.float32)
    v = np.array([0.5, 1, -2], np.float32)
    np.testing.assert_array_equal(np.asarray(e.call(x, v)), [[0, 1, 0], [2.5, 0, 2]])


def test_64bit_tuple_result_in_process():
    x = np.array([1.0, 2.0, 1e-300], np.float64)
    with jax.enable_x64(True):
        e = jax.export.deserialize(bytearray(export(pair_f64(), ("cpu",))))
        squares, below = e.call(x)
    assert np.asarray(squares).dtype == np.float64
    np.testing.assert_array_equal(np.asarray(squares), [1.0, 4.0, 0.0])  # 1e-600 underflows to 0 in f64
    np.testing.assert_array_equal(np.asarray(below), [True, False, True])
    assert [s.dtype for s in argument_specs(pair_f64())] == [np.float64]


def test_refusals_and_bad_platforms():
    with pytest.raises(OpError, match="platforms must be distinct names"):
        export(bias_relu(), ("gpu",))
    with pytest.raises(OpError, match="platforms"):
        export(bias_relu(), ())
    c = XlaBuilder("feed")
    ops.Infeed(c, Shape.array_shape(PrimitiveType.F32, (2,)))
    with pytest.raises(UnsupportedError, match="host callback"):
        export(c.build())
    with pytest.raises(OpError, match="expected an XlaComputation"):
        export("not a computation")


def _readme_blocks() -> tuple[str, str]:
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    make = next(b for b in blocks if b.startswith("# export_bias_relu.py"))
    load = next(b for b in blocks if b.startswith("# run_bias_relu.py"))
    return make, load


def _jax_only_python(where: Path) -> Path:
    """A Python with jax and NumPy but without this package: a bare venv seeing the shared
    site-packages through a .pth line (whose own .pth files, among them the editable install
    of this package, are then not run)."""
    env = where / "jax_only"
    venv.EnvBuilder(with_pip=False).create(env)
    site_packages = next(env.glob("lib/python*/site-packages"))
    (site_packages / "shared.pth").write_text(str(Path(jax.__file__).resolve().parent.parent) + "\n")
    return env / "bin" / "python"


def test_readme_round_trip_in_a_process_without_this_package(tmp_path):
    make, load = _readme_blocks()
    out = subprocess.run([sys.executable, "-c", make], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"})
    assert out.returncode == 0, out.stderr
    assert "stablehlo.maximum" in out.stdout
    assert (tmp_path / "bias_relu.jaxexport").is_file()
    expected = get_backend("jax").execute(bias_relu(), [np.array([[-1, 0, 1], [2, -3, 4]], np.float32),
                                                        np.array([0.5, 1, -2], np.float32)])[0]
    np.testing.assert_array_equal(expected, [[0, 1, 0], [2.5, 0, 2]])
    isolated = tmp_path / "isolated"
    isolated.mkdir()
    (isolated / "bias_relu.jaxexport").write_bytes((tmp_path / "bias_relu.jaxexport").read_bytes())
    prove = ("try:\n    import backend\nexcept ModuleNotFoundError:\n    pass\n"
             "else:\n    raise SystemExit('this package is importable here')\n")
    check = "\nnp.save('result.npy', np.asarray(exported.call(x, v)))\n"
    run = subprocess.run([str(_jax_only_python(tmp_path)), "-I", "-c", prove + load + check], cwd=isolated,
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"})
    assert run.returncode == 0, run.stderr
    np.testing.assert_array_equal(np.load(isolated / "result.npy"), expected)


def build_for_cli():
    return bias_relu()


def test_command_line_writes_the_artifact(tmp_path, capsys):
    out = tmp_path / "b.jaxexport"
    assert main(["tests.test_export:build_for_cli", "--platforms", "tpu,cpu", "-o", str(out)]) == 0
    assert "platforms tpu,cpu" in capsys.readouterr().out
    assert jax.export.deserialize(bytearray(out.read_bytes())).platforms == ("tpu", "cpu")
    assert main(["tests.test_export:build_for_cli", "--platforms", "cuda", "--stablehlo"]) == 0
    assert "stablehlo.maximum" in capsys.readouterr().out
    assert main(["tests.test_export:nothing_here"]) == 2
    assert "cannot load" in capsys.readouterr().err
    assert main(["tests.test_export:README"]) == 2
    assert "not an XlaComputation" in capsys.readouterr().err


def test_multi_device_ops_are_refused_with_the_reason():
    c = XlaBuilder("rid")
    ops.ReplicaId(c)
    with pytest.raises(UnsupportedError, match="ReplicaId exchanges data between replicas or partitions"):
        export(c.build())


def _columns_top_2(name):
    """ApproxTopK's example ``columns`` (specs/ops/approx_top_k.yaml) in f32 (whose
    ApproxTopK jax lowers to its custom call): the two largest of each column of
    [[5, 2], [8, 0], [6, 7]] are [[8, 7], [6, 2]]."""
    gt = XlaBuilder("gt")
    ops.Gt(ops.Parameter(gt, 0, Shape.array_shape(PrimitiveType.F32, ()), "a"),
           ops.Parameter(gt, 1, Shape.array_shape(PrimitiveType.F32, ()), "b"))
    c = XlaBuilder(name)
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (3, 2)), "x")
    ops.GetTupleElement(ops.ApproxTopK(c, [x], [ops.Constant(c, np.float32(-np.inf))], 2, 0, gt.build()), 0)
    return c.build()


def test_exact_forms_replace_approx_top_k_in_every_computation():
    """ApproxTopK (jax's export: custom_call @ApproxTopK, which only XLA expands) becomes ApproxTopKFallback, in the
    entry computation and in the computations it calls; the rest is kept."""
    direct = _columns_top_2("direct")
    c = XlaBuilder("caller")
    x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (3, 2)), "x")
    ops.Neg(ops.Call(c, direct, [x]))
    called = c.build()
    columns = np.array([[5, 2], [8, 0], [6, 7]], np.float32)
    for comp, want in ((direct, [[8, 7], [6, 2]]), (called, [[-8, -7], [-6, -2]])):
        exact = with_exact_forms(comp)
        assert "custom_call @ApproxTopK" in comp.as_stablehlo_text()
        assert "custom_call" not in exact.as_stablehlo_text()
        opcodes = [i.opcode for sub in (*exact.subcomputations(), exact) for i in sub.instructions]
        assert "ApproxTopK" not in opcodes and opcodes.count("ApproxTopKFallback") == 1
        assert exact.program_shape().result_shape() == comp.program_shape().result_shape()
        assert get_backend("jax").execute(exact, [columns])[0].tolist() == want
    assert with_exact_forms(bias_relu()).as_hlo_text() == bias_relu().as_hlo_text()
    plain = bias_relu()
    assert with_exact_forms(plain) is plain  # nothing to replace: the computation itself


def test_several_computations_as_one_module_of_named_functions():
    c = XlaBuilder("sorted")
    ops.Sort([ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (3,)), "x")])
    text = stablehlo_module([bias_relu(), pair_f64(), c.build()], ["relu", "pair", "sorted"])
    public = re.findall(r"func\.func public @(\w+)\((.*?)\)", text)
    assert public == [("relu", "%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>"), ("pair", "%arg0: tensor<3xf64>"),
                      ("sorted", "%arg0: tensor<3xf32>")]
    private = re.findall(r"func\.func private @(\w+)", text)
    assert private and all(name.startswith(("relu__", "pair__", "sorted__")) for name in private)
    called = set(re.findall(r"call @(\w+)", text))
    assert called and called <= set(private) and "@main" not in text
    assert text.startswith("module @linked attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}")


@pytest.mark.parametrize("names", [["a"], ["a", "a"], ["a", "b__c"], ["a", "1b"], ["a", 2]])
def test_linked_module_function_names_are_checked(names):
    texts = [bias_relu().as_stablehlo_text()] * 2
    with pytest.raises(OpError, match="distinct function names"):
        link_stablehlo_modules(texts, names)


def _readme_tpu_install_line() -> str:
    """The pip line of the README's Cloud TPU recipe (run_bias_relu.py's first line)."""
    readme = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")).read()
    found = re.search(r"# run_bias_relu\.py: .*?: (pip install .*)$", readme, re.M)
    assert found, "the README's TPU recipe names no pip line"
    return found.group(1)


def test_loading_an_artifact_needs_flatbuffers_and_the_docs_say_so(tmp_path, capsys):
    """jax.export.deserialize imports flatbuffers, which jax does not install: the README's TPU recipe and
    ``python -m backend.export --help`` name it."""
    assert shlex.split(_readme_tpu_install_line()) == ["pip", "install", "jax[tpu]", "flatbuffers"]
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "pip install 'jax[tpu]' flatbuffers" in " ".join(capsys.readouterr().out.split())
    out = tmp_path / "b.jaxexport"
    out.write_bytes(export(bias_relu(), ("cpu",)))
    load = f"import jax; jax.export.deserialize(bytearray(open({str(out)!r}, 'rb').read()))"
    blocked = subprocess.run([sys.executable, "-c", "import sys; sys.modules['flatbuffers'] = None; " + load],
                             capture_output=True, text=True, timeout=120)
    assert blocked.returncode == 1 and "flatbuffers" in blocked.stderr  # without it, loading fails
    assert subprocess.run([sys.executable, "-c", load], capture_output=True, timeout=120).returncode == 0


@pytest.mark.slow
def test_the_tpu_recipe_runs_in_a_venv_with_only_what_the_readme_installs(tmp_path):
    """A fresh venv with the README's pip line (jax's CPU build in place of jax[tpu] off a TPU, at this jax's
    version), then the README's run_bias_relu.py on an artifact exported here."""
    env_dir = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True, timeout=300)
    packages = shlex.split(_readme_tpu_install_line())[2:]
    packages = [f"jax=={jax.__version__}" if p == "jax[tpu]" else p for p in packages]
    subprocess.run([str(env_dir / "bin" / "pip"), "install", "-q", *packages], check=True, timeout=900)
    (tmp_path / "bias_relu.jaxexport").write_bytes(export(bias_relu(), ("tpu", "cpu")))
    readme = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")).read()
    script = next(b for b in re.findall(r"^```python\n(.*?)^```", readme, re.S | re.M) if "run_bias_relu.py" in b)
    proc = subprocess.run([str(env_dir / "bin" / "python"), "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "[[0.  1.  0. ]\n [2.5 0.  2. ]]" in proc.stdout, proc.stdout


def padded_rows(read_by_reduce=False):
    """The document's set_dimension_size(v, n, 0) on f32[10, 3], returned with n and -v (a tuple of three)."""
    c = XlaBuilder("padded")
    v = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (10, 3)), "v")
    n = ops.Parameter(c, 1, Shape.array_shape(PrimitiveType.S32, ()), "n")
    padded = ops.SetDimensionSize(v, n, 0)
    if read_by_reduce:
        add = XlaBuilder("add")
        ops.Add(ops.Parameter(add, 0, Shape.scalar_shape(PrimitiveType.F32), "a"),
                ops.Parameter(add, 1, Shape.scalar_shape(PrimitiveType.F32), "b"))
        ops.Reduce(c, [padded], [ops.Constant(c, np.float32(0))], add.build(), (0, 1))
    else:
        ops.Tuple(c, [padded, n, ops.Neg(v)])
    return c.build()


def test_bounded_dynamic_results_are_set_dimension_size_on_the_static_stand_in():
    """jax arrays have static sizes; a computation whose bounded-dynamic values are only results exports as its
    static stand-in (the operand and the size in each such result's place) with StableHLO's set_dimension_size
    applied to them."""
    comp = padded_rows()
    stand_in = static_stand_in(comp)
    assert stand_in.results == (DynamicResult(0, comp.root_instruction.shape.tuple_shapes()[0]), None, None)
    assert str(stand_in.computation.root_instruction.shape) == "(f32[10,3], s32[], s32[], f32[10,3])"
    text = stablehlo_text(comp)
    assert ("func.func @main(%arg0: tensor<10x3xf32>, %arg1: tensor<i32>) -> (tensor<?x3xf32, "
            "#stablehlo.bounds<10, ?>>, tensor<i32>, tensor<10x3xf32>)") in text
    assert re.search(r"stablehlo\.set_dimension_size %0#0, %0#1, dim = 0 : \(tensor<10x3xf32>, tensor<i32>\) -> "
                     r"tensor<\?x3xf32, #stablehlo\.bounds<10, \?>>", text)
    assert stablehlo_unsupported_reason(comp) is None
    with pytest.raises(UnsupportedError, match="bounded-dynamic dimension"):
        export(comp)  # jax's artifact holds jax's arrays: static
    assert static_stand_in(bias_relu()) is None  # nothing dynamic


def test_a_bounded_dynamic_value_the_program_reads_is_not_exported():
    comp = padded_rows(read_by_reduce=True)
    assert static_stand_in(comp) is None
    assert "bounded-dynamic dimension" in stablehlo_unsupported_reason(comp)
    with pytest.raises(UnsupportedError, match="SetDimensionSize"):
        stablehlo_text(comp)
