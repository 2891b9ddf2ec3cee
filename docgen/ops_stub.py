"""``backend/ops.pyi``: the functions of :mod:`backend.ops`, declared for IDEs and type checkers.

:mod:`backend.ops` makes its op functions at run time from the specs (module ``__getattr__``), so static
tools see none of them. This writes the stub that declares each one with the parameters it takes at run
time: the spec's argument names, order and defaults, one ``typing.overload`` per call form where a function
has several (the spec's ``forms``, xla_client's call forms), each parameter annotated by its argument's kind
(``XlaOp``, ``Sequence[XlaOp]``, ``XlaBuilder``, ``XlaComputation``) or its attribute's ``type:``
(:data:`ATTRIBUTE_TYPES`), the docstring's summary as a one-line docstring.

    python -m docgen.ops_stub --write   # writes backend/ops.pyi
    python -m docgen.ops_stub --check   # exit 1, and say what differs, when backend/ops.pyi is stale
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import difflib
import importlib
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import specs
from backend import ops
from backend.surface import call_forms as call_form_names

STUB = Path(ops.__file__).with_suffix(".pyi")
COMMAND = "python -m docgen.ops_stub --write"

#: Argument kind -> annotation (an attribute's comes from its ``type:``).
KIND_TYPES: dict[str, str] = {
    "builder": "XlaBuilder",
    "operand": "XlaOp",
    "operands": "Sequence[XlaOp]",
    "computation": "XlaComputation",
}

#: Attribute ``type:`` (backend.hlo.attributes.NORMALIZERS) -> annotation: xla_client's type, and the plain
#: Python forms its normalizer takes as the same value (a dtype or ``'f32'`` for an element type, shape text
#: ``'f32[2,3]'``, an enum member's name or number, ``(low, high, interior)`` triples for a PaddingConfig, ...),
#: so a call the builder accepts type-checks. Objects taken by their fields alone (another library's enum or
#: record) are not named. A type not listed here is ``Any``; ``type?`` adds ``| None``.
ATTRIBUTE_TYPES: dict[str, str] = {
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "bytes": "bytes | str",
    "target_name": "str | bytes",
    "int_list": "Sequence[int]",
    "int_list_or_none": "Sequence[int] | None",
    "int_pairs": "Sequence[Sequence[int]]",
    "bool_list": "Sequence[bool]",
    "element_type": "PrimitiveType | str | np.dtype[Any] | type[Any]",
    "shape": "Shape | str",
    "shape_list": "Sequence[Shape | str]",
    "layout": "Layout | Shape | str | Sequence[int]",
    "literal": "Any",
    "computation": "XlaComputation",
    "computation_list": "Sequence[XlaComputation]",
    "comparison_direction": "ComparisonDirection | str",
    "comparison_type": "ComparisonType | str",
    "transpose": "TriangularSolveOptions_Transpose | str | int",
    "fft_type": "FftType | str | int",
    "random_algorithm": "RandomAlgorithm | str | int",
    "custom_call_schedule": "CustomCallSchedule | str | int",
    "custom_call_api_version": "CustomCallApiVersion | str | int",
    "result_accuracy": "ResultAccuracy | str | Mapping[str, Any]",
    "precision_config": "PrecisionConfig | Precision | str | int | Sequence[Precision | str | int]",
    "padding_config": "PaddingConfig | Sequence[Sequence[int]]",
    "convolution_dimension_numbers": "ConvolutionDimensionNumbers | Sequence[str] | Mapping[str, Any]",
    "dot_dimension_numbers": "DotDimensionNumbers | Sequence[Sequence[Sequence[int]]] | Mapping[str, Any]",
    "ragged_dot_dimension_numbers": "RaggedDotDimensionNumbers | Sequence[Any] | Mapping[str, Any]",
    "gather_dimension_numbers": "GatherDimensionNumbers | Mapping[str, Any]",
    "scatter_dimension_numbers": "ScatterDimensionNumbers | Mapping[str, Any]",
    "replica_groups": "Sequence[ReplicaGroup | Sequence[int]] | None",
    "channel_id": "Any",
    "device_to_host_channel": "Any",
    "host_to_device_channel": "Any",
    "output_operand_aliasing": "Sequence[tuple[Sequence[int], tuple[int, Sequence[int]]]]",
}

#: Each name an annotation may use -> the module that defines it (the stub imports it from there; a module
#: itself, such as ``np``, is imported under that name).
IMPORTS: dict[str, str] = {
    "np": "numpy",
    "Any": "typing",
    "overload": "typing",
    "Callable": "collections.abc",
    "Mapping": "collections.abc",
    "Sequence": "collections.abc",
    **dict.fromkeys(("ComparisonDirection", "ComparisonType", "ConvolutionDimensionNumbers", "CustomCallApiVersion",
                     "CustomCallSchedule", "DotDimensionNumbers", "FftType", "GatherDimensionNumbers", "PaddingConfig",
                     "Precision", "PrecisionConfig", "RaggedDotDimensionNumbers", "RandomAlgorithm", "ReplicaGroup",
                     "ResultAccuracy", "ScatterDimensionNumbers", "TriangularSolveOptions_Transpose"),
                    "backend.hlo.attribute_types"),
    "XlaBuilder": "backend.hlo.builder",
    "PrimitiveType": "backend.hlo.etypes",
    **dict.fromkeys(("XlaComputation", "XlaOp"), "backend.hlo.graph"),
    **dict.fromkeys(("Layout", "Shape"), "backend.hlo.shape"),
    "OpContext": "backend.rules",
}
_MODULE_ALIASES = {"np"}
_BUILTINS = {"None", "int", "float", "bool", "str", "bytes", "tuple", "list", "dict", "set", "type", "object"}

_REQUIRED = inspect.Parameter.empty


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    annotation: str
    default: Any = _REQUIRED
    keyword_only: bool = False
    star: str = ""  # "*" (``*args``) or "**" (``**kwargs``)
    positional_only: bool = False

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


@dataclasses.dataclass(frozen=True)
class Function:
    name: str
    forms: tuple[tuple[Param, ...], ...]  # one, or one overload each
    returns: str
    doc: str


def attribute_annotation(type_name: str | None) -> str:
    """The annotation of an attribute of spec type ``type_name`` (``int_list``, ``shape?``, ...)."""
    if type_name is None:
        return "Any"
    base = type_name.rstrip("?")
    annotation = ATTRIBUTE_TYPES.get(base, "Any")
    if type_name.endswith("?") and annotation != "Any" and "None" not in annotation.split(" | "):
        annotation += " | None"
    return annotation


def _arg_annotation(arg: Any) -> str:
    """A spec argument's annotation, by its kind (an attribute or computation: by its type)."""
    if arg.kind == "attribute" or (arg.kind == "computation" and arg.type is not None):
        return attribute_annotation(arg.type)
    return KIND_TYPES[arg.kind]


def _form_params(spec: Any, form: Any) -> list[Param]:
    """The parameters of one form (``None``: the spec's own signature; a tuple of argument names: one of the
    spec's ``forms``; a ``CallForm``: xla_client's), in order; a form's second keyword for an argument it
    also takes positionally is marked ``keyword_only``."""
    if form is None or isinstance(form, tuple):
        args = spec.args if form is None else [spec.arg(n) for n in form]
        return [Param(call_form_names.python_name(a.name), _arg_annotation(a), a.default if not a.required
                      else _REQUIRED) for a in args]
    out = []
    for a in form.args:
        if a.builder:
            annotation = "XlaBuilder"
        elif a.to is None:  # an input of the form's adapter
            annotation = attribute_annotation(a.type)
        elif a.single:
            annotation = "XlaOp"
        else:
            annotation = _arg_annotation(spec.arg(a.to))
        default = a.default if not a.required and not a.keyword_only else _REQUIRED
        out.append(Param(call_form_names.python_name(a.name), annotation, default, a.keyword_only))
    return out


def _signature(params: list[Param]) -> tuple[Param, ...]:
    """A form's parameters as the runtime shows them: without its second keywords, and an optional parameter
    before a required one without its default (as ``backend.ops`` makes it; Python's syntax)."""
    positional = [p for p in params if not p.keyword_only]
    out: list[Param] = []
    for p in reversed(positional):
        keep = all(not q.required for q in out)
        out.insert(0, p if keep else dataclasses.replace(p, default=_REQUIRED))
    return tuple(out)


def _keyword_variants(form: Any, params: list[Param]) -> Iterator[tuple[Param, ...]]:
    """For each second keyword of ``form`` (``keyword_only: true``, e.g. ScaledDot's ``dimension_number``): the
    call that names its argument by it, so the argument and those after it are keyword-only."""
    if form is None or isinstance(form, tuple):
        return
    positional = _signature(params)
    by_name = {p.name: p for p in params}
    for a in form.args:
        if not a.keyword_only:
            continue
        k = next(i for i, p in enumerate(positional) if p.name == call_form_names.python_name(a.to))
        renamed = dataclasses.replace(by_name[positional[k].name], name=call_form_names.python_name(a.name))
        tail = [by_name[p.name] for p in positional[k + 1:]]
        yield (*positional[:k], *(dataclasses.replace(p, keyword_only=True) for p in (renamed, *tail)))


def _op_forms(name: str, spec: Any) -> list[Any]:
    """The forms of the function ``name`` made from ``spec``, in the order ``backend.ops`` tries them."""
    if name == spec.name:
        own = list(spec.forms.values()) if spec.forms else [None]
        return [*own, *(f for f in spec.call_forms if f.name is None)]
    return [f for f in spec.call_forms if f.name == name]


def _summary(doc: str | None) -> str:
    """A docstring's first paragraph, on one line."""
    text = inspect.cleandoc(doc or "")
    return " ".join(text.split("\n\n", 1)[0].split())


def _op_function(name: str, spec: Any, function: Callable[..., Any]) -> Function:
    forms: list[tuple[Param, ...]] = []
    names: list[tuple[tuple[str, bool], ...]] = []
    for form in _op_forms(name, spec):
        params = _form_params(spec, form)
        names.append(tuple((p.name, p.default is _REQUIRED) for p in params if not p.keyword_only))
        for variant in (_signature(params), *_keyword_variants(form, params)):
            if variant not in forms:
                forms.append(variant)
    runtime = tuple(tuple((call_form_names.python_name(n), r) for n, r in f) for f in function.call_forms)
    if tuple(names) != runtime:
        raise RuntimeError(f"ops.{name}: the call forms read from its spec {names} are not the function's "
                           f"call_forms {runtime}: docgen.ops_stub has fallen behind backend.ops")
    count = ops.SEVERAL_RESULTS.get(name)
    returns = "XlaOp" if count is None else f"tuple[{', '.join(['XlaOp'] * count)}]"  # xla_client's tuple
    return Function(name, tuple(forms), returns, _summary(function.__doc__))


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return "Any"
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _python_function(name: str, function: Callable[..., Any]) -> Function:
    """A function written in Python (a value function, the module's own): its real signature."""
    signature = inspect.signature(function)
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    params = tuple(Param(p.name, _annotation_text(p.annotation), p.default, p.kind == inspect.Parameter.KEYWORD_ONLY,
                         stars.get(p.kind, ""), p.kind == inspect.Parameter.POSITIONAL_ONLY)
                   for p in signature.parameters.values())
    return Function(name, (params,), _annotation_text(signature.return_annotation), _summary(function.__doc__))


def module_names() -> list[str]:
    """The public names ``backend.ops`` defines itself (besides the op functions): its functions and annotated
    module-level values."""
    namespace = vars(ops)
    annotated = getattr(ops, "__annotations__", {})
    return [n for n, v in namespace.items() if not n.startswith("_") and (
        n in annotated or (inspect.isfunction(v) and v.__module__ == ops.__name__))]


def functions() -> list[Function]:
    """Every function ``dir(backend.ops)`` lists, in that order."""
    all_specs = specs.load_all()
    by_name: dict[str, Any] = {}
    for spec in all_specs.values():  # as backend.ops._all_functions: a later name replaces an earlier one
        by_name[spec.name] = spec
        for form in spec.call_forms:
            if form.name is not None:
                by_name[form.name] = spec
    out = []
    for name in dir(ops):
        function = getattr(ops, name)
        if not callable(function):
            continue
        spec = by_name.get(name)
        out.append(_python_function(name, function) if spec is None else _op_function(name, spec, function))
    return out


# -- rendering ------------------------------------------------------------------------------------------------------
def _literal(value: Any) -> str:
    """A default as the stub writes it: a plain literal, else ``...``."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        text = repr(value)
        try:
            if ast.literal_eval(text) == value and "\n" not in text:
                return text
        except ValueError:  # nan, inf: no literal
            pass
    return "..."


def _param_text(p: Param) -> str:
    text = f"{p.star}{p.name}: {p.annotation}"
    return text if p.required else f"{text} = {_literal(p.default)}"


def _params_text(params: tuple[Param, ...]) -> list[str]:
    out: list[str] = []
    star = False
    for k, p in enumerate(params):
        star = star or p.star == "*"
        if p.keyword_only and not star:
            out.append("*")
            star = True
        out.append(_param_text(p))
        if p.positional_only and (k + 1 == len(params) or not params[k + 1].positional_only):
            out.append("/")
    return out


def _doc_text(doc: str) -> str:
    text = f'"""{doc}"""'
    if "\\" in doc or '"' in doc[-1:] or '"""' in doc:
        text = repr(doc)
    return text


def _def_text(name: str, params: tuple[Param, ...], returns: str, doc: str, overloaded: bool) -> str:
    parts = _params_text(params)
    head = f"def {name}({', '.join(parts)}) -> {returns}:"
    if len(head) > 120:
        head = f"def {name}(\n" + "".join(f"    {p},\n" for p in parts) + f") -> {returns}:"
    decorator = "@overload\n" if overloaded else ""
    return f"{decorator}{head}\n    {_doc_text(doc)}\n" if doc else f"{decorator}{head} ...\n"


def _used_names(annotations: list[str]) -> set[str]:
    names: set[str] = set()
    for text in annotations:
        for node in ast.walk(ast.parse(text, mode="eval")):
            if isinstance(node, ast.Name):
                names.add(node.id)
    unknown = names - set(IMPORTS) - _BUILTINS
    if unknown:
        raise RuntimeError(f"annotations use {sorted(unknown)}: add them to docgen.ops_stub.IMPORTS")
    return names - _BUILTINS


def _import_key(name: str) -> tuple[int, str]:
    """isort's order-by-type within one import: constants, classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name


def _imports_text(names: set[str], reexported: dict[str, str] | None = None) -> str:
    """The import block, as isort writes it: standard library, third party, first party (``backend``); each
    ``reexported`` name (``name -> module``) as ``from module import name as name``, an attribute of
    ``backend.ops`` for static tools (xla_client's enums)."""
    reexported = reexported or {}
    names = names - set(reexported)
    modules = {IMPORTS[n] for n in names if n not in _MODULE_ALIASES} | set(reexported.values())
    blocks: dict[int, list[str]] = {0: [], 1: [], 2: []}

    def section(module: str) -> int:
        top = module.split(".")[0]
        return 2 if top == "backend" else 0 if top in sys.stdlib_module_names else 1

    for name in sorted(n for n in names if n in _MODULE_ALIASES):
        blocks[section(IMPORTS[name])].append(f"import {IMPORTS[name]} as {name}")
    for module in sorted(modules):
        imported = sorted((n for n in names if IMPORTS.get(n) == module and n not in _MODULE_ALIASES), key=_import_key)
        line = f"from {module} import {', '.join(imported)}"
        if len(line) > 120:
            line = f"from {module} import (\n" + "".join(f"    {n},\n" for n in imported) + ")"
        blocks[section(module)] += [line] if imported else []
        blocks[section(module)] += [f"from {module} import {n} as {n}" for n in sorted(reexported, key=_import_key)
                                    if reexported[n] == module]
    return "\n\n".join("\n".join(block) for block in blocks.values() if block)


HEADER = f'''# Generated from the specs by `{COMMAND}`: do not edit by hand.
"""The functions :mod:`backend.ops` makes at run time from the specs, declared for IDEs and type checkers.

Each op takes its spec's arguments (``specs/ops/<op>.yaml``); a function with several call forms has one
overload per form.
"""
'''


def _defining_module(name: str) -> str:
    """The module that defines ``backend.ops``'s attribute ``name`` under that name (the class's own module, or
    the one that names an alias of it)."""
    value = getattr(ops, name)
    for module in (value.__module__, "backend.hlo.xla_client_helpers"):  # xla_client's aliases are named there
        if getattr(importlib.import_module(module), name, None) is value:
            return module
    raise RuntimeError(f"ops.{name}: no module defines it under that name")


def render() -> str:
    """The text of ``backend/ops.pyi``."""
    own = [_python_function(n, getattr(ops, n)) for n in module_names() if inspect.isfunction(getattr(ops, n))]
    values = [n for n in module_names() if not inspect.isfunction(getattr(ops, n))]
    generated = functions()
    annotations = [ops.__annotations__[n] for n in values]
    for f in [*own, *generated]:
        annotations += [f.returns, *(p.annotation for form in f.forms for p in form)]
    used = _used_names(annotations)
    if any(len(f.forms) > 1 for f in generated):
        used.add("overload")
    chunks = [HEADER, _imports_text(used, {name: _defining_module(name) for name in ops.ENUMS}) + "\n"]
    chunks.append("".join(f"{n}: {ops.__annotations__[n]}\n" for n in values))
    for f in [*own, *generated]:
        overloaded = len(f.forms) > 1
        chunks.append("\n".join(_def_text(f.name, form, f.returns, f.doc, overloaded) for form in f.forms))
    return "\n".join(c for c in chunks if c)


def stale() -> str | None:
    """What differs between ``backend/ops.pyi`` and :func:`render` (a diff), or None when they agree."""
    want = render()
    have = STUB.read_text(encoding="utf-8") if STUB.exists() else ""
    if have == want:
        return None
    diff = list(difflib.unified_diff(have.splitlines(), want.splitlines(), "backend/ops.pyi (committed)",
                                     "backend/ops.pyi (from the specs)", lineterm="", n=1))
    shown = diff[:60] + ([f"... ({len(diff) - 60} more diff lines)"] if len(diff) > 60 else [])
    return "\n".join(shown)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docgen.ops_stub", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="write backend/ops.pyi")
    group.add_argument("--check", action="store_true", help="exit 1 when backend/ops.pyi is not what --write writes")
    args = parser.parse_args(argv)
    if args.write:
        STUB.write_text(render(), encoding="utf-8")
        print(f"wrote {STUB}")
        return 0
    diff = stale()
    if diff is None:
        print(f"{STUB} is up to date")
        return 0
    print(f"{STUB} is stale (run `{COMMAND}`):\n{diff}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
