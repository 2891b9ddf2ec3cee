"""backend/ops.pyi, the stub that shows static tools the op functions backend.ops makes at run time."""

import ast
import fnmatch
import importlib
import importlib.util
import inspect
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import specs
from backend import ops
from backend.surface.call_forms import python_name
from docgen import ops_stub

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "backend" / "ops.pyi"
SAMPLE = ("Pad", "Add", "Sort", "Reshape", "Conditional", "ConvGeneralDilated")


def _tree() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"), filename=str(STUB))


def _defs(name: str) -> list[ast.FunctionDef]:
    return [n for n in _tree().body if isinstance(n, ast.FunctionDef) and n.name == name]


def _params(node: ast.FunctionDef) -> list[str]:
    return [a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)]


def _positional(node: ast.FunctionDef) -> list[tuple[str, bool]]:
    """(name, required) of the parameters a call may give by position."""
    args = node.args.args
    first_default = len(args) - len(node.args.defaults)
    return [(a.arg, k < first_default) for k, a in enumerate(args)]


def _is_overload(node: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "overload" for d in node.decorator_list)


def _concrete_signature(function):
    """The runtime signature, or None where the function keeps ``(*args, **kwargs)``."""
    params = inspect.signature(function).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    return inspect.signature(function)


def _second_keywords(name: str) -> dict[str, str]:
    """A call form's second keyword for an argument (``keyword_only``, ScaledDot's ``dimension_number``) ->
    that argument."""
    out = {}
    for spec in specs.load_all().values():
        for form in spec.call_forms:
            if (form.name or spec.name) == name:
                out.update({python_name(a.name): python_name(a.to) for a in form.args if a.keyword_only})
    return out


def test_stub_is_what_the_generator_writes():
    diff = ops_stub.stale()
    assert diff is None, f"backend/ops.pyi is stale: run `python -m docgen.ops_stub --write`\n{diff}"


def test_stub_parses_as_python():
    compile(STUB.read_text(encoding="utf-8"), str(STUB), "exec", flags=ast.PyCF_ONLY_AST)
    assert ast.get_docstring(_tree())


def test_stub_declares_every_function_and_nothing_else():
    declared = set()
    for node in _tree().body:
        if isinstance(node, ast.FunctionDef):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            declared.add(node.target.id)
        elif isinstance(node, ast.Assign):
            declared.update(t.id for t in node.targets)
    functions = {n for n in dir(ops) if callable(getattr(ops, n))}
    own = set(ops_stub.module_names())
    assert {"DEFAULTS", "build_op", "build_op_in_forms"} <= own
    assert not own & functions
    assert declared == functions | own, (f"missing: {sorted(functions | own - declared)}, "
                                         f"extra: {sorted(declared - functions - own)}")
    assert len(functions) > 150  # every spec, its aliases, the value functions


def test_every_function_has_its_runtime_parameters():
    """Each function's declaration is its runtime signature; a function with several call forms has one
    overload per form (its runtime signature, where it has one, is the first), and each overload is one form."""
    for name in (n for n in dir(ops) if callable(getattr(ops, n))):
        function = getattr(ops, name)
        nodes = _defs(name)
        signature = _concrete_signature(function)
        forms = {tuple((python_name(n), r) for n, r in form) for form in function.call_forms}
        if len(nodes) == 1:
            assert not _is_overload(nodes[0]), name
            assert signature is not None, name
            assert _params(nodes[0]) == list(signature.parameters), name
            assert _positional(nodes[0]) == [(p.name, p.default is p.empty) for p in signature.parameters.values()]
            assert len(forms) == 1, name
            continue
        assert len(nodes) > 1 and all(_is_overload(n) for n in nodes), name
        if signature is not None:
            assert _params(nodes[0]) == list(signature.parameters), name
        seconds = _second_keywords(name)
        seen = set()
        for node in nodes:
            if node.args.kwonlyargs and node.args.kwonlyargs[0].arg in seconds:  # the call naming the second keyword
                names = [seconds.get(n, n) for n in _params(node)]
                assert any([n for n, _ in form] == names for form in forms), (name, names)
                continue
            assert not node.args.kwonlyargs, name
            form = tuple(_positional(node))
            assert form in {_shown(f) for f in forms}, (name, form, forms)
            seen.add(form)
        assert seen == {_shown(f) for f in forms}, name  # every call form has its overload


def _shown(form):
    """A call form as a signature shows it: an optional argument before a required one without its default
    (Python's syntax, and backend.ops's runtime signatures)."""
    out = []
    for n, required in reversed(form):
        out.insert(0, (n, required or any(r for _, r in out)))
    return tuple(out)


@pytest.mark.parametrize("name", SAMPLE)
def test_sample_ops(name):
    function = getattr(ops, name)
    nodes = _defs(name)
    signature = _concrete_signature(function)
    if signature is not None:
        assert _params(nodes[0]) == list(signature.parameters)
        for node_default, p in zip(reversed(nodes[0].args.defaults), reversed(signature.parameters.values())):
            text = ast.unparse(node_default)
            if text != "...":  # a plain literal: the runtime's default
                assert ast.literal_eval(text) == p.default, (name, p.name)
    if len(function.call_forms) == 1:
        assert len(nodes) == 1
    else:
        assert [[n for n, _ in _positional(node)] for node in nodes] == [[n for n, _ in form]
                                                                          for form in function.call_forms]
    for node in nodes:
        assert ast.get_docstring(node) == function.__doc__.splitlines()[0]
        assert ast.unparse(node.returns) == "XlaOp"


def _annotations(node: ast.FunctionDef) -> dict[str, str]:
    return {a.arg: ast.unparse(a.annotation) for a in (*node.args.args, *node.args.kwonlyargs)}


def test_annotations_follow_the_argument_kinds():
    pad = _annotations(_defs("Pad")[0])
    assert pad == {"operand": "XlaOp", "padding_value": "XlaOp",
                   "padding_config": "PaddingConfig | Sequence[Sequence[int]]"}
    own, xla_client = (_annotations(n) for n in _defs("Sort"))
    assert own["operands"] == "Sequence[XlaOp]" and own["comparator"] == "XlaComputation | None"
    assert own["dimension"] == "int" and own["is_stable"] == "bool"
    assert xla_client["builder"] == "XlaBuilder"
    conditional = [_annotations(n) for n in _defs("Conditional")]
    assert conditional[0]["true_computation"] == "XlaComputation"
    assert conditional[1]["branch_computations"] == "Sequence[XlaComputation]"
    iota = [_annotations(n) for n in _defs("Iota")]
    assert iota[0]["shape"] == "Shape | str"
    assert iota[1]["type"].startswith("PrimitiveType") and iota[1]["size"] == "int"
    conv = _annotations(_defs("ConvGeneralDilated")[0])
    assert conv["window_strides"] == "Sequence[int]" and conv["feature_group_count"] == "int"
    value = _defs("ApproxTopKReductionOutputSize")[0]
    assert ast.unparse(value.returns) == "tuple[int, int]" and _annotations(value)["recall_target"] == "float"


def test_every_attribute_type_of_the_specs_has_an_annotation():
    """A new attribute type gets a deliberate annotation (docgen.ops_stub.ATTRIBUTE_TYPES), not ``Any`` unseen."""
    types = {a.type.rstrip("?") for spec in specs.load_all().values() for a in spec.args if a.type}
    types |= {a.type.rstrip("?") for spec in specs.load_all().values() for f in spec.call_forms for a in f.args
              if a.type}
    assert types <= set(ops_stub.ATTRIBUTE_TYPES), sorted(types - set(ops_stub.ATTRIBUTE_TYPES))


def test_stub_imports_each_name_from_the_module_that_defines_it():
    """A name the stub uses comes from its class's module; a re-export (``N as N``: xla_client's enums, attributes
    of ``backend.ops``) is the object ``backend.ops`` has, from a module that names it so."""
    for node in _tree().body:
        if isinstance(node, ast.ImportFrom) and node.module.startswith("backend"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                if alias.asname is None:
                    assert getattr(module, alias.name).__module__ == node.module, alias.name
                else:
                    assert alias.asname == alias.name and getattr(module, alias.name) is getattr(ops, alias.name)


def test_check_says_what_differs_and_write_mends_it(tmp_path, monkeypatch, capsys):
    stub = tmp_path / "ops.pyi"
    stub.write_text(STUB.read_text(encoding="utf-8").replace("def Pad(", "def Padd(", 1), encoding="utf-8")
    monkeypatch.setattr(ops_stub, "STUB", stub)
    assert ops_stub.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "python -m docgen.ops_stub --write" in err and "-def Padd(" in err and "+def Pad(" in err
    assert ops_stub.main(["--write"]) == 0
    assert stub.read_text(encoding="utf-8") == STUB.read_text(encoding="utf-8")
    assert ops_stub.main(["--check"]) == 0


def test_the_wheel_ships_the_stub_and_the_typed_marker():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["backend"]
    for name in ("ops.pyi", "py.typed"):
        assert (ROOT / "backend" / name).is_file()
        assert any(fnmatch.fnmatch(name, pattern) for pattern in data), name


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (pip install mypy)")
def test_mypy_checks_op_calls_against_the_stub(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(textwrap.dedent("""\
        from backend import PrimitiveType, Shape, XlaBuilder, XlaOp, ops

        c = XlaBuilder("pad")
        x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (2,)), "x")
        v = ops.Constant(c, 0.0)
        y: XlaOp = ops.Pad(x, v, [(1, 1, 0)])
        ops.Iota(c, PrimitiveType.F32, 4)
        ops.Sort(c, [x], dimension=0)
        ops.Reshape(x, [2, 1])
        ops.Add(x, x, broadcast_dimensions=())
    """))
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""\
        from backend import PrimitiveType, Shape, XlaBuilder, ops

        c = XlaBuilder("pad")
        x = ops.Parameter(c, 0, Shape.array_shape(PrimitiveType.F32, (2,)), "x")
        ops.Pad(x)
        ops.Padd(x)
    """))
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
                          "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(good), str(bad)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert run.returncode == 1, run.stdout + run.stderr
    assert not [e for e in errors if "good.py" in e], run.stdout
    assert any("bad.py:5:" in e and '"Pad"' in e for e in errors), run.stdout
    assert any("bad.py:6:" in e and '"Padd"' in e for e in errors), run.stdout
