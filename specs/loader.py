"""Strict loader for ``specs/ops/*.yaml``.

Unknown keys, missing keys, values of the wrong kind, a constraint without an error example and
an error example naming an unknown constraint are all :class:`~backend.errors.SpecError`s naming the
file, the key and the line. That each layer implements each spec (a shape rule, a reference evaluator,
a jax lowering, the call forms' adapters) is checked above every layer, by :mod:`backend.completeness`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from backend.errors import SpecError
from backend.hlo import attributes, etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.literals import parse_literal, parse_shape
from specs import cache as spec_cache
from specs import field_types

OPS_DIR = Path(__file__).parent / "ops"

ARG_KINDS = ("builder", "operand", "operands", "attribute", "computation")
#: An op's family names the module that holds it in every layer: ``backend/rules/<family>.py`` (or the element-wise
#: rules shared by several families, ``backend/rules/elementwise.py``), ``backend/reference/<family>.py``,
#: ``backend/jax_backend/<family>.py`` and, for the ops with kernels, ``backend/pallas_backend/<family>.py``
#: (``backend.completeness`` checks it). Each family belongs to one coarser category, for the docs' navigation and
#: for the questions "is this op element-wise" and "does it talk to other devices"; the category is derived from
#: the family, never written in a spec. In navigation order:
FAMILY_CATEGORIES: dict[str, str] = {
    "unary": "element-wise", "binary": "element-wise", "comparison": "element-wise", "conversion": "element-wise",
    "math_functions": "element-wise", "special_functions": "element-wise",
    "creation": "creation",
    "data_movement": "data movement", "slicing": "data movement", "indexing": "data movement",
    "dynamic_shape": "data movement",
    "reduction": "reduction",
    "higher_order": "higher-order",
    "linear_algebra": "linear algebra", "convolution": "linear algebra", "decompositions": "linear algebra",
    "fft": "linear algebra", "scaled_dots": "linear algebra", "batch_norm": "linear algebra",
    "control_flow": "control flow and side effects", "side_effects": "control flow and side effects",
    "collectives": "collectives", "collective_exchange": "collectives", "point_to_point": "collectives",
    "random": "random",
    "internal": "internal",
}
FAMILIES: tuple[str, ...] = tuple(FAMILY_CATEGORIES)
CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(FAMILY_CATEGORIES.values()))
#: The categories some code asks about by name.
ELEMENTWISE = "element-wise"
COLLECTIVES = "collectives"
REDUCTION = "reduction"


def families_of(category: str) -> tuple[str, ...]:
    """The families of ``category``, in navigation order."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown category '{category}' (known: {', '.join(CATEGORIES)})")
    return tuple(f for f, c in FAMILY_CATEGORIES.items() if c == category)


def by_category(all_specs: Mapping[str, OpSpec] | Iterable[OpSpec]) -> dict[str, list[OpSpec]]:
    """``all_specs`` (OpSpecs, or a mapping of them) grouped by category: the categories in navigation order (only
    those with an op), each one's ops by name."""
    values = all_specs.values() if isinstance(all_specs, Mapping) else all_specs
    grouped: dict[str, list[OpSpec]] = {category: [] for category in CATEGORIES}
    for spec in sorted(values, key=lambda s: s.name):
        grouped[spec.category].append(spec)
    return {category: ops for category, ops in grouped.items() if ops}


class _Missing:
    """The default of a required argument (picklable: it unpickles as the same object)."""

    def __repr__(self) -> str:
        return "<required>"

    def __reduce__(self) -> str:
        return "_MISSING"


_MISSING = _Missing()


# -- YAML with line numbers -------------------------------------------------------------------
class _Map(dict):
    """A mapping that remembers the line of each key (1-based)."""

    line: int = 0
    lines: dict[str, int]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lines = {}


def _construct_map(loader: yaml.SafeLoader, node: yaml.MappingNode) -> _Map:
    out = _Map()
    out.line = node.start_mark.line + 1
    out.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key '{key}'", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = key_node.start_mark.line + 1
    return out


def _line_loader(base: type[yaml.SafeLoader]) -> type[yaml.SafeLoader]:
    """``base`` (a safe loader) building :class:`_Map`s."""
    loader = type(f"Line{base.__name__}", (base,), {"__doc__": f"{base.__name__}, building mappings with lines."})
    loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
    return loader


#: The safe YAML loaders a spec parses with, by name: PyYAML's pure-Python one, and libyaml's where PyYAML was built
#: with it (the faster; the default). Every spec reads the same with both (a test checks).
YAML_LOADERS: dict[str, type[yaml.SafeLoader]] = {"python": _line_loader(yaml.SafeLoader)}
if hasattr(yaml, "CSafeLoader"):
    YAML_LOADERS["libyaml"] = _line_loader(yaml.CSafeLoader)
DEFAULT_YAML_LOADER = "libyaml" if "libyaml" in YAML_LOADERS else "python"


class _Ctx:
    """Where we are in a file, for error messages."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, message: str, node: Any = None, key: str | None = None) -> SpecError:
        line = None
        if isinstance(node, _Map):
            line = node.lines.get(key, node.line) if key is not None else node.line
        loc = f"{self.path.name}" + (f":{line}" if line else "")
        return SpecError(f"{loc}: {where}: {message}")

    def mapping(self, node: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = (),
                types: dict[str, field_types.FieldType] | None = None, nullable: frozenset[str] = frozenset()) -> _Map:
        """``node`` as a mapping with only the allowed keys, all required ones, and values of ``types``."""
        if not isinstance(node, dict):
            raise self.fail(where, f"expected a mapping, got {type(node).__name__}", node)
        for key in node:
            if key not in required and key not in optional:
                allowed = ", ".join(required + optional)
                raise self.fail(f"{where}.{key}", f"unknown key '{key}' (allowed: {allowed})", node, key)
        for key in required:
            if key not in node:
                raise self.fail(where, f"missing required key '{key}'", node)
        if types is not None:
            field_types.check_fields(node, types, lambda key, problem: self.fail(f"{where}.{key}", problem, node, key),
                                     nullable)
        return node  # type: ignore[return-value]


# -- the model --------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ArgSpec:
    name: str
    kind: str                      # builder | operand | operands | attribute | computation
    type: str | None = None        # attribute type (see backend.hlo.attributes)
    element: str | None = None     # element-type variable (T) for operands
    per_operand: bool = False      # ``element: T_i``: each operand of a variadic argument has its own T_i
    default: Any = _MISSING
    doc: str = ""
    broadcast: bool = False        # operand is implicitly broadcast to the result shape
    constraint: str | None = None  # the constraint an invalid value of this argument violates

    @property
    def required(self) -> bool:
        return self.default is _MISSING

    @property
    def is_operand(self) -> bool:
        return self.kind in ("operand", "operands")


@dataclasses.dataclass(frozen=True)
class FormArg:
    """One argument of an alternative call form (``call_forms:`` in a spec).

    ``to`` is the spec argument it gives (``None``: an extra leading XlaBuilder when ``builder``,
    or an input of the form's adapter when ``type`` is set); ``single`` wraps one XlaOp into the
    one-element list a variadic spec argument takes; ``default`` applies when the call omits it.
    """

    name: str
    to: str | None
    single: bool = False
    builder: bool = False
    type: str | None = None
    default: Any = _MISSING
    keyword_only: bool = False     # another keyword for a spec argument the form also takes positionally

    @property
    def required(self) -> bool:
        return self.default is _MISSING and not self.keyword_only


@dataclasses.dataclass(frozen=True)
class CallForm:
    """An alternative signature of an op (xla_client's names, order, defaults, overloads): its
    function name (``None``: the op's own), its arguments, and the adapter that computes spec
    arguments from the form's typed inputs (``None``: every argument maps to a spec argument)."""

    name: str | None
    args: tuple[FormArg, ...]
    adapter: str | None = None

    @property
    def extra_builder(self) -> bool:
        """Whether the form takes a leading XlaBuilder the op has no argument for."""
        return any(a.builder for a in self.args)


class PerDevice(tuple):  # type: ignore[type-arg]
    """One value per device (device order ``d = replica * partitions + partition``): an input or the
    expected result of a multi-device example."""

    def __repr__(self) -> str:
        return f"PerDevice({list(self)!r})"


def device_count(devices: tuple[int, int] | None) -> int:
    return 1 if devices is None else devices[0] * devices[1]


@dataclasses.dataclass(frozen=True)
class Example:
    name: str
    inputs: dict[str, Any]
    attrs: dict[str, Any]
    expected: Any
    doc: str = ""
    #: The implementation-defined entries the example exercises (empty: none); only their masks excuse.
    implementation_defined: tuple[str, ...] = ()
    #: The values the program's Infeed ops read, in order, and the values its Outfeed ops write.
    infeed: tuple[Any, ...] = ()
    outfeed: tuple[Any, ...] | None = None
    #: ``(replicas, partitions)`` of a multi-device example (None: one device, no ``devices`` key); with
    #: devices, an input is one value (every device's) or a PerDevice, and ``expected`` is a PerDevice.
    devices: tuple[int, int] | None = None


@dataclasses.dataclass(frozen=True)
class ImplementationDefined:
    """Behaviour the documents leave open: the closed set of allowed outcomes, each with its source."""

    id: str
    doc: str
    outcomes: dict[str, str]  # outcome name -> what it gives, and who does it
    reference: str  # the outcome the reference computes (the expected values)
    xla: str  # XLA's observed outcome
    xla_constant_folded: str | None = None  # XLA's outcome when its constant folder evaluates the op, if another

    @property
    def alternatives(self) -> set[str]:
        """The outcomes other than the reference's (given by the op's registered function)."""
        return set(self.outcomes) - {self.reference}

    def xla_outcome(self, constant_operands: bool) -> str:
        """XLA's observed outcome: with constant operands, that of its constant folder."""
        return self.xla_constant_folded if constant_operands and self.xla_constant_folded else self.xla


@dataclasses.dataclass(frozen=True)
class ErrorExample:
    name: str
    violates: str
    inputs: dict[str, Any]
    attrs: dict[str, Any]
    #: ``(replicas, partitions)``: the error is one execute reports on that many devices (None: the builder's).
    devices: tuple[int, int] | None = None


@dataclasses.dataclass(frozen=True)
class Bound:
    """``|actual - expected| <= atol + rtol * |expected|``; with ``log2_scale`` naming an int-list attribute,
    both bounds are multiplied by max(1, log2 N), N the product of that attribute of the instruction (the
    rounding error of an FFT of length N grows as log2 N)."""

    rtol: float
    atol: float
    log2_scale: str | None = None

    def for_attrs(self, attrs: dict[str, Any] | None) -> Bound:
        """The bound for an instruction with these attributes (itself when it does not scale)."""
        if self.log2_scale is None or attrs is None:
            return self
        factor = max(1.0, math.log2(max(1, math.prod(attrs.get(self.log2_scale) or ()))))
        return Bound(self.rtol * factor, self.atol * factor)


@dataclasses.dataclass(frozen=True)
class Tolerance:
    """Per-element-type bounds; ``None`` means exact."""

    by_key: dict[str, Bound | None]

    def for_type(self, etype: PrimitiveType, attrs: dict[str, Any] | None = None) -> Bound | None:
        """The bound for a result of ``etype`` (scaled for the instruction's ``attrs`` where the bound says so)."""
        bound = self._unscaled(etype)
        return bound.for_attrs(attrs) if bound is not None else None

    def _unscaled(self, etype: PrimitiveType) -> Bound | None:
        name = etypes.short_name(etype)
        if name in self.by_key:
            return self.by_key[name]
        for cls in ("pred", "f8", "float", "complex", "signed", "unsigned", "int"):
            if cls in self.by_key and etypes.in_class(etype, cls):
                return self.by_key[cls]
        return self.by_key.get("default")


@dataclasses.dataclass(frozen=True)
class OpSpec:
    name: str
    family: str
    summary: str
    semantics: str
    signatures: tuple[str, ...]
    args: tuple[ArgSpec, ...]
    element_types: dict[str, tuple[PrimitiveType, ...]]
    result: dict[str, Any]
    constraints: dict[str, str]
    type_constraint: str | None
    examples: tuple[Example, ...]
    errors: tuple[ErrorExample, ...]
    tolerance: Tolerance
    implementation_defined: dict[str, ImplementationDefined]
    generator: dict[str, Any]
    shape_rule: str
    executable: bool
    path: Path
    #: Argument lists of the op's call forms (``{form: (arg, ...)}``), for ops with several signatures
    #: whose argument lists differ (Conditional); empty when every argument belongs to the one form.
    forms: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    call_forms: tuple[CallForm, ...] = ()
    #: Why the op has no executable form (given exactly when ``executable`` is false).
    not_executable: str = ""
    #: An operand with an element-type variable may be a tuple of arrays of one element type (AllReduce's).
    tuple_operands: bool = False

    def arg(self, name: str) -> ArgSpec:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(name)

    @property
    def category(self) -> str:
        """The coarser category of the op's family (:data:`FAMILY_CATEGORIES`)."""
        return FAMILY_CATEGORIES[self.family]

    @property
    def operand_args(self) -> tuple[ArgSpec, ...]:
        return tuple(a for a in self.args if a.is_operand)

    def form_args(self, names: Any) -> tuple[str, ...]:
        """The arguments of the call form that takes all of ``names`` (all arguments for a one-form op)."""
        if not self.forms:
            return tuple(a.name for a in self.args)
        names = set(names)
        for form in self.forms.values():
            if names <= set(form):
                return form
        raise KeyError(f"no call form of {self.name} takes all of {sorted(names)}")

    @property
    def takes_builder(self) -> bool:
        return any(a.kind == "builder" for a in self.args)


_TOP_REQUIRED = ("op", "family", "summary", "signatures", "args", "constraints", "examples", "errors",
                 "tolerance")
_TOP_OPTIONAL = ("semantics", "element_types", "result", "type_constraint", "implementation_defined",
                 "generator", "shape_rule", "executable", "not_executable", "see_also", "call_forms", "forms",
                 "tuple_operands")
_GENERATOR_KEYS = ("element_types", "shapes", "values", "configs", "special_values", "count", "devices")


def _parse_tolerance(ctx: _Ctx, node: Any, args: tuple[ArgSpec, ...] = ()) -> Tolerance:
    int_lists = {a.name for a in args if a.kind == "attribute" and (a.type or "").rstrip("?") == "int_list"}

    def bound(v: Any, where: str) -> Bound | None:
        if v == "exact":
            return None
        m = ctx.mapping(v, where, (), ("rtol", "atol", "log2_scale"), types=field_types.BOUND)
        scale = m.get("log2_scale")
        if scale is not None and scale not in int_lists:
            raise ctx.fail(f"{where}.log2_scale", f"log2_scale names an int_list attribute of the op "
                           f"({', '.join(sorted(int_lists)) or 'it has none'}), got {scale!r}", m, "log2_scale")
        return Bound(float(m.get("rtol", 0.0)), float(m.get("atol", 0.0)), scale)

    if node == "exact":
        return Tolerance({"default": None})
    if not isinstance(node, dict):
        raise ctx.fail("tolerance", f"expected 'exact' or a mapping, got {node!r}")
    by_key: dict[str, Bound | None] = {}
    for key, value in node.items():
        if not isinstance(key, str):
            raise ctx.fail(f"tolerance.{key}", f"expected an element type or class name, got {key!r}", node, key)
        if key != "default" and key not in etypes.TYPE_CLASSES:
            try:
                etypes.from_short_name(key)
            except ValueError:
                raise ctx.fail(f"tolerance.{key}", f"unknown element type or class '{key}'", node, key) from None
        by_key[key] = bound(value, f"tolerance.{key}")
    by_key.setdefault("default", None)
    return Tolerance(by_key)


def _parse_args(ctx: _Ctx, node: Any) -> tuple[ArgSpec, ...]:
    if not isinstance(node, dict) or not node:
        raise ctx.fail("args", "expected a non-empty mapping of argument name to description")
    out = []
    for name, desc in node.items():
        where = f"args.{name}"
        if not isinstance(name, str) or not name.isidentifier():
            raise ctx.fail(where, f"argument names are Python identifiers, got {name!r}", node, name)
        m = ctx.mapping(desc, where, ("kind",), ("type", "element", "default", "doc", "broadcast", "constraint"),
                        types=field_types.ARG)
        if m["kind"] not in ARG_KINDS:
            raise ctx.fail(f"{where}.kind", f"unknown kind '{m['kind']}' (allowed: {', '.join(ARG_KINDS)})", m, "kind")
        if m["kind"] == "attribute" and "type" not in m:
            raise ctx.fail(where, "an attribute needs a 'type'", m)
        if "type" in m:
            _check_attribute_type(ctx, m, where)
        element, per_operand = m.get("element"), False
        if isinstance(element, str) and element.endswith("_i"):
            if m["kind"] != "operands":
                raise ctx.fail(f"{where}.element", f"a per-operand type variable ('{element}') needs kind 'operands'",
                               m, "element")
            element, per_operand = element[:-2], True
        out.append(ArgSpec(name=name, kind=m["kind"], type=m.get("type"), element=element, per_operand=per_operand,
                           default=m.get("default", _MISSING), doc=str(m.get("doc", "")),
                           broadcast=bool(m.get("broadcast", False)), constraint=m.get("constraint")))
    return tuple(out)


_FORM_KEYS = ("name", "adapter", "rename", "doc")
_FORM_ARG_KEYS = ("to", "single", "builder", "type", "default", "keyword_only")


def _parse_call_forms(ctx: _Ctx, node: Any, op: str, args: tuple[ArgSpec, ...]) -> tuple[CallForm, ...]:
    """The ``call_forms:`` alternative signatures, each checked against the spec's arguments."""
    by_name = {a.name: a for a in args}
    forms = []
    for i, entry in enumerate(node or []):
        where = f"call_forms[{i}]"
        m = ctx.mapping(entry, where, ("args",), _FORM_KEYS, types=field_types.CALL_FORM)
        if isinstance(m["args"], list):
            m["args"] = _compact_form_args(ctx, where, m, by_name)
        elif "rename" in m:
            raise ctx.fail(f"{where}.rename", "'rename' goes with a list of 'args'; in a mapping, give 'to'", m, "rename")
        name = m.get("name")
        if name is not None and (not re.match(r"^[A-Z][A-Za-z0-9]*$", name) or name == op):
            raise ctx.fail(f"{where}.name", f"a form's name is another CamelCase function name, got {name!r}", m, "name")
        adapter = m.get("adapter")
        if not isinstance(m["args"], dict) or not m["args"]:
            raise ctx.fail(f"{where}.args", "expected a non-empty mapping of argument name to description", m, "args")
        form_args, targets = [], set()
        for arg_name, desc in m["args"].items():
            aw = f"{where}.args.{arg_name}"
            d = ctx.mapping(desc if desc is not None else _Map(), aw, (), _FORM_ARG_KEYS, types=field_types.FORM_ARG)
            if not isinstance(arg_name, str) or not arg_name.isidentifier():
                raise ctx.fail(aw, f"argument names are Python identifiers, got {arg_name!r}", m["args"], arg_name)
            form_arg = _form_arg(ctx, aw, arg_name, d, adapter, by_name)
            if form_arg.to is not None and not form_arg.keyword_only:
                if form_arg.to in targets:
                    raise ctx.fail(aw, f"spec argument '{form_arg.to}' is given by two arguments of the form", d)
                targets.add(form_arg.to)
            form_args.append(form_arg)
        if adapter is None:
            for a in args:
                if a.required and a.name not in targets:
                    raise ctx.fail(f"{where}.args", f"the form gives no value for the required argument '{a.name}'", m,
                                   "args")
        forms.append(CallForm(name=name, args=tuple(form_args), adapter=adapter))
    return tuple(forms)


def _compact_form_args(ctx: _Ctx, where: str, m: _Map, by_name: dict[str, ArgSpec]) -> _Map:
    """``args: [builder, operands, ...]`` with ``rename: {input: operand}``, as the mapping form: a leading
    ``builder`` the op has no argument for is an extra XlaBuilder, a renamed name gives its target."""
    rename = m.get("rename") or {}
    for new, old in rename.items():
        if old not in by_name or (new in by_name and new not in m["args"]):
            raise ctx.fail(f"{where}.rename.{new}", f"renames '{new}' to '{old}': the target must be an argument of the "
                           "spec (and a name of one only renamed when it is in args)", rename, new)
    out = _Map()
    for k, name in enumerate(m["args"]):
        if not isinstance(name, str) or name in out:
            raise ctx.fail(f"{where}.args", f"'{name}' is not an argument name, or repeats", m, "args")
        if name == "builder" and k == 0 and "builder" not in by_name:
            out[name] = _Map(builder=True)
        else:
            out[name] = _Map(to=rename[name]) if name in rename else _Map()
    for new, old in rename.items():  # a renamed name not in args is another keyword for its target
        if new not in out:
            out[new] = _Map(to=old, keyword_only=True)
    return out


def _form_arg(ctx: _Ctx, where: str, name: str, d: _Map, adapter: str | None, by_name: dict[str, ArgSpec]) -> FormArg:
    if d.get("builder"):
        if "to" in d or "type" in d or d.get("single"):
            raise ctx.fail(where, "a 'builder: true' argument is an extra XlaBuilder: no 'to', 'type' or 'single'", d)
        return FormArg(name, None, builder=True, default=d.get("default", _MISSING))
    if "type" in d:
        if adapter is None or "to" in d:
            raise ctx.fail(f"{where}.type", "only an input of the form's adapter has a 'type' (and no 'to')", d, "type")
        _check_attribute_type(ctx, d, where)
        return FormArg(name, None, type=d["type"], default=d.get("default", _MISSING))
    target = d.get("to", name)
    if target not in by_name:
        raise ctx.fail(where, f"'{target}' is not an argument of the spec (give 'to: <spec argument>')", d)
    spec_arg = by_name[target]
    if d.get("single") and spec_arg.kind != "operands":
        raise ctx.fail(f"{where}.single", f"'single' wraps one XlaOp for a variadic argument; '{target}' is "
                       f"{spec_arg.kind}", d, "single")
    if "default" in d and spec_arg.kind == "attribute":
        _check_attribute_type(ctx, _Map(type=spec_arg.type, default=d["default"]), where)
    if d.get("keyword_only"):
        if "default" in d or d.get("single"):
            raise ctx.fail(where, "a 'keyword_only' argument is another keyword for its target: no 'default' or "
                           "'single'", d)
        return FormArg(name, target, keyword_only=True)
    return FormArg(name, target, single=bool(d.get("single", False)), default=d.get("default", spec_arg.default))


def _check_attribute_type(ctx: _Ctx, m: _Map, where: str) -> None:
    """The type is one the builder knows, and the default (if any) is a valid value of it."""
    if m["type"].rstrip("?") not in attributes.NORMALIZERS:
        raise ctx.fail(f"{where}.type", f"unknown attribute type '{m['type']}' (known: "
                       f"{', '.join(sorted(attributes.NORMALIZERS))}; a trailing '?' allows null)", m, "type")
    if "default" in m:
        try:
            attributes.normalize(m["type"], m["default"])
        except Exception as e:
            raise ctx.fail(f"{where}.default", f"not a valid {m['type']}: {e}", m, "default") from None


def _parse_devices(ctx: _Ctx, m: dict[str, Any], where: str) -> tuple[int, int] | None:
    """An example's ``devices: {replicas: R, partitions: P}`` (both default 1), or None without the key."""
    if "devices" not in m:
        return None
    node = m["devices"]
    d = ctx.mapping(node, f"{where}.devices", (), ("replicas", "partitions"), types=field_types.DEVICES)
    return int(d.get("replicas", 1)), int(d.get("partitions", 1))


def _per_device(node: Any, devices: tuple[int, int], literal: bool) -> PerDevice:
    """A list of one literal (or shape) per device."""
    count = device_count(devices)
    if not isinstance(node, list) or len(node) != count:
        raise ValueError(f"with devices {{replicas: {devices[0]}, partitions: {devices[1]}}}, expected a list of "
                         f"{count} values (one per device), got {node!r:.200}")
    return PerDevice(parse_literal(v) if literal or isinstance(v, dict) else parse_shape(str(v)) for v in node)


def _parse_inputs(ctx: _Ctx, node: Any, where: str, literal: bool, args: Any = (),
                  devices: tuple[int, int] | None = None) -> dict[str, Any]:
    """Argument name -> value (a literal, or a shape where ``literal`` is false). With ``devices``, an operand's
    value may be a list of one value per device (a PerDevice; for a variadic argument, per entry)."""
    if node is None:
        return {}
    if not isinstance(node, dict):
        raise ctx.fail(where, "expected a mapping of argument name to value")
    kinds = {a.name: a.kind for a in args}
    out: dict[str, Any] = {}
    for name, value in node.items():
        try:
            if devices is not None and kinds.get(name) == "operand" and isinstance(value, list):
                out[name] = _per_device(value, devices, literal)
            elif devices is not None and kinds.get(name) == "operands" and isinstance(value, list):
                out[name] = [_per_device(v, devices, literal) if isinstance(v, list)
                             else parse_literal(v) if literal or isinstance(v, dict) else parse_shape(str(v))
                             for v in value]
            elif isinstance(value, list):
                out[name] = [parse_literal(v) if literal or isinstance(v, dict) else parse_shape(v) for v in value]
            elif literal or isinstance(value, dict):
                out[name] = parse_literal(value)
            else:
                out[name] = parse_shape(str(value))
        except ValueError as e:
            raise ctx.fail(f"{where}.{name}", str(e), node, name) from None
    return out


def load_file(path: Path | str, yaml_loader: str = DEFAULT_YAML_LOADER) -> OpSpec:
    """Load and validate one spec file (that every layer implements it is :mod:`backend.completeness`'s check);
    ``yaml_loader`` names one of :data:`YAML_LOADERS`."""
    path = Path(path)
    ctx = _Ctx(path)
    try:
        doc = yaml.load(path.read_text(), Loader=YAML_LOADERS[yaml_loader])  # noqa: S506 (safe loader subclass)
    except yaml.MarkedYAMLError as e:
        line = f":{e.problem_mark.line + 1}" if e.problem_mark is not None else ""
        raise SpecError(f"{path.name}{line}: {e.problem or e}") from None
    except (yaml.YAMLError, SpecError) as e:
        raise SpecError(f"{path.name}: {e}") from None
    top = ctx.mapping(doc, "spec", _TOP_REQUIRED, _TOP_OPTIONAL, types=field_types.TOP, nullable=field_types.NULLABLE)
    name = top["op"]
    if not isinstance(name, str) or not re.match(r"^[A-Z][A-Za-z0-9]*$", name):
        raise ctx.fail("op", f"op name must be CamelCase, got {name!r}", top, "op")
    if top["family"] not in FAMILIES:
        raise ctx.fail("family", f"unknown family '{top['family']}' (allowed: {', '.join(FAMILIES)})", top, "family")
    args = _parse_args(ctx, top["args"])

    element_types: dict[str, tuple[PrimitiveType, ...]] = {}
    for var, classes in (top.get("element_types") or {}).items():
        if not isinstance(classes, list):
            raise ctx.fail(f"element_types.{var}", "expected a list of element types or classes", top["element_types"], var)
        try:
            element_types[var] = etypes.resolve_types(classes)
        except ValueError as e:
            raise ctx.fail(f"element_types.{var}", str(e), top["element_types"], var) from None
    for a in args:
        if a.element is not None and a.element not in element_types:
            raise ctx.fail(f"args.{a.name}.element", f"element type variable '{a.element}' is not in element_types",
                           top["args"][a.name], "element")

    constraints = top["constraints"]
    if not isinstance(constraints, dict):
        raise ctx.fail("constraints", "expected a mapping of constraint id to statement", top, "constraints")
    for cid in constraints:
        if not re.match(r"^C[0-9]+$", str(cid)):
            raise ctx.fail(f"constraints.{cid}", "constraint ids are C1, C2, ...", constraints, cid)
    type_constraint = top.get("type_constraint")
    if type_constraint is not None and type_constraint not in constraints:
        raise ctx.fail("type_constraint", f"'{type_constraint}' is not a constraint id", top, "type_constraint")
    if element_types and any(a.element for a in args) and type_constraint is None:
        raise ctx.fail("type_constraint", "operands have element-type variables, so name the constraint that the "
                       "element-type check reports", top)

    examples = []
    for i, ex in enumerate(top["examples"] or []):
        where = f"examples[{i}]"
        m = ctx.mapping(ex, where, ("name", "expected"), ("inputs", "attrs", "doc", "implementation_defined",
                                                          "infeed", "outfeed", "devices"),
                        types=field_types.EXAMPLE, nullable=field_types.EXAMPLE_NULLABLE)
        _check_arg_keys(ctx, m, where, args)
        devices = _parse_devices(ctx, m, where)
        try:
            expected = parse_literal(m["expected"]) if devices is None else _per_device(m["expected"], devices, True)
        except ValueError as e:
            raise ctx.fail(f"{where}.expected", str(e), m, "expected") from None
        feeds: dict[str, Any] = {}
        for key in ("infeed", "outfeed"):
            try:
                feeds[key] = tuple(parse_literal(v) for v in m[key]) if key in m else None
            except ValueError as e:
                raise ctx.fail(f"{where}.{key}", str(e), m, key) from None
        examples.append(Example(name=str(m["name"]),
                                inputs=_parse_inputs(ctx, m.get("inputs"), f"{where}.inputs", True, args, devices),
                                attrs=dict(m.get("attrs") or {}), expected=expected, doc=str(m.get("doc", "")),
                                implementation_defined=_entry_ids(ctx, m, where),
                                infeed=feeds["infeed"] or (), outfeed=feeds["outfeed"], devices=devices))
    errors = []
    for i, ex in enumerate(top["errors"] or []):
        where = f"errors[{i}]"
        m = ctx.mapping(ex, where, ("violates",), ("name", "inputs", "attrs", "devices"), types=field_types.ERROR,
                        nullable=field_types.EXAMPLE_NULLABLE)
        _check_arg_keys(ctx, m, where, args)
        devices = _parse_devices(ctx, m, where)
        if m["violates"] not in constraints:
            raise ctx.fail(f"{where}.violates", f"'{m['violates']}' is not a constraint id of {name}", m, "violates")
        errors.append(ErrorExample(name=str(m.get("name", f"{m['violates'].lower()}_{i}")), violates=m["violates"],
                                   inputs=_parse_inputs(ctx, m.get("inputs"), f"{where}.inputs", False, args,
                                                        devices),
                                   attrs=dict(m.get("attrs") or {}), devices=devices))
    for a in args:
        if a.constraint is not None and a.constraint not in constraints:
            raise ctx.fail(f"args.{a.name}.constraint", f"'{a.constraint}' is not a constraint id", top["args"], a.name)
    covered = {e.violates for e in errors}
    for cid in constraints:
        if cid not in covered:
            raise ctx.fail(f"constraints.{cid}", "constraint has no error example", constraints, cid)
    names = [e.name for e in examples] + [e.name for e in errors]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ctx.fail("examples", f"example names must be unique, repeated: {sorted(dup)}")

    forms = _parse_forms(ctx, top, {a.name for a in args})
    for ex in [*(top["examples"] or []), *(top["errors"] or [])]:
        keys = {*(ex.get("inputs") or {}), *(ex.get("attrs") or {})}
        if forms and not any(keys <= set(f) for f in forms.values()):
            raise ctx.fail("examples", f"the arguments {sorted(keys)} of '{ex.get('name', ex.get('violates'))}' "
                           f"are not those of one call form ({', '.join(forms)})", ex)

    generator = top.get("generator") or {}
    ctx.mapping(generator, "generator", (), _GENERATOR_KEYS, types=field_types.GENERATOR)
    for i, config in enumerate(generator.get("configs") or []):
        ctx.mapping(config, f"generator.configs[{i}]", (), tuple(field_types.CONFIG), types=field_types.CONFIG)
    for where, node in [("generator", generator), *((f"generator.configs[{i}]", c)
                                                    for i, c in enumerate(generator.get("configs") or []))]:
        if any(len(d) != 2 for d in node.get("devices") or []):
            raise ctx.fail(f"{where}.devices", "expected a list of [replicas, partitions] pairs", node, "devices")
    ctx.mapping(top.get("result") or {}, "result", (), ("element",))
    impl = _parse_implementation_defined(ctx, top.get("implementation_defined"))
    for ex in examples:
        unknown = [k for k in ex.implementation_defined if k not in impl]
        if unknown:
            raise ctx.fail("examples", f"example '{ex.name}' names unknown implementation_defined "
                           f"'{unknown[0]}'")
    spec = OpSpec(name=name, family=top["family"], summary=top["summary"].strip(),
                  semantics=(top.get("semantics") or "").strip(), signatures=tuple(top["signatures"]), args=args,
                  element_types=element_types, result=dict(top.get("result") or {}), constraints=dict(constraints),
                  type_constraint=type_constraint, examples=tuple(examples), errors=tuple(errors),
                  tolerance=_parse_tolerance(ctx, top["tolerance"], args), implementation_defined=dict(impl),
                  generator=dict(generator), shape_rule=str(top.get("shape_rule", name)),
                  executable=bool(top.get("executable", True)), path=path, forms=forms,
                  tuple_operands=bool(top.get("tuple_operands", False)),
                  call_forms=_parse_call_forms(ctx, top.get("call_forms"), name, args),
                  not_executable=(top.get("not_executable") or "").strip())
    if spec.executable == bool(spec.not_executable):
        key = "not_executable" if spec.not_executable else "executable"
        raise ctx.fail(key, "an op with 'executable: false' says why in 'not_executable' (and only such an op "
                       "has one)", top, key)
    if forms and spec.call_forms:
        raise ctx.fail("call_forms", "an op with 'forms' (argument lists that differ) lists each signature there; "
                       "'call_forms' maps onto the one argument list of the others", top, "call_forms")
    return spec


_OUTCOME_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _entry_ids(ctx: _Ctx, m: dict[str, Any], where: str) -> tuple[str, ...]:
    """An example's ``implementation_defined``: one entry id, or a list of them."""
    node = m.get("implementation_defined")
    if node is None:
        return ()
    ids = [node] if isinstance(node, str) else node
    if not isinstance(ids, list) or not ids or not all(isinstance(k, str) and k for k in ids) \
            or len(set(ids)) != len(ids):
        raise ctx.fail(f"{where}.implementation_defined", f"expected an entry id or a list of distinct entry ids, "
                       f"got {node!r}", m, "implementation_defined")
    return tuple(ids)


def _parse_implementation_defined(ctx: _Ctx, node: Any) -> dict[str, ImplementationDefined]:
    if node is None:
        return {}
    if not isinstance(node, dict):
        raise ctx.fail("implementation_defined", "expected a mapping of id to {doc, outcomes, reference, xla}")
    out = {}
    for key, entry in node.items():
        where = f"implementation_defined.{key}"
        if not _OUTCOME_NAME.match(str(key)):
            raise ctx.fail(where, "ids are snake_case names", node, key)
        m = ctx.mapping(entry, where, ("doc", "outcomes", "reference", "xla"), ("xla_constant_folded",))
        if not isinstance(m["doc"], str) or not m["doc"].strip():
            raise ctx.fail(f"{where}.doc", "expected a non-empty string", m, "doc")
        outcomes = m["outcomes"]
        if not isinstance(outcomes, dict) or not outcomes:
            raise ctx.fail(f"{where}.outcomes", "expected a non-empty mapping of outcome name to description "
                           "(with its source)", m, "outcomes")
        for name, text in outcomes.items():
            if not _OUTCOME_NAME.match(str(name)):
                raise ctx.fail(f"{where}.outcomes.{name}", "outcome names are snake_case", outcomes, name)
            if not isinstance(text, str) or not text.strip():
                raise ctx.fail(f"{where}.outcomes.{name}", "expected a non-empty description", outcomes, name)
        for field in ("reference", "xla", "xla_constant_folded"):
            if field == "xla_constant_folded" and field not in m:
                continue
            if not isinstance(m[field], str) or m[field] not in outcomes:
                raise ctx.fail(f"{where}.{field}", f"'{m[field]}' is not one of the outcomes {sorted(outcomes)}",
                               m, field)
        out[str(key)] = ImplementationDefined(id=str(key), doc=m["doc"].strip(), reference=m["reference"],
                                              xla=m["xla"], xla_constant_folded=m.get("xla_constant_folded"),
                                              outcomes={str(k): v.strip() for k, v in outcomes.items()})
    return out


def _parse_forms(ctx: _Ctx, top: Any, arg_names: set[str]) -> dict[str, tuple[str, ...]]:
    node = top.get("forms")
    if node is None:
        return {}
    if not isinstance(node, dict) or len(node) < 2:
        raise ctx.fail("forms", "expected a mapping of at least two form names to argument lists", top, "forms")
    forms: dict[str, tuple[str, ...]] = {}
    for form, names in node.items():
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ctx.fail(f"forms.{form}", "expected a non-empty list of argument names", node, form)
        unknown = [n for n in names if n not in arg_names]
        if unknown:
            raise ctx.fail(f"forms.{form}", f"{unknown} are not arguments of this op", node, form)
        forms[str(form)] = tuple(names)
    unused = arg_names - {n for f in forms.values() for n in f}
    if unused:
        raise ctx.fail("forms", f"arguments {sorted(unused)} belong to no form", top, "forms")
    return forms


#: The keys of a sub-computation description in an example (built by conformance.build).
COMPUTATION_DESCRIPTION_KEYS = ("op", "params", "pairwise", "select", "compare", "keys", "scan", "returns", "ops",
                                "name")


def _check_arg_keys(ctx: _Ctx, m: _Map, where: str, args: tuple[ArgSpec, ...]) -> None:
    by_name = {a.name: a for a in args}
    for section in ("inputs", "attrs"):
        for key in (m.get(section) or {}):
            if key not in by_name:
                raise ctx.fail(f"{where}.{section}.{key}", f"'{key}' is not an argument of this op",
                               m[section], key)
    for key, value in (m.get("attrs") or {}).items():
        a = by_name[key]
        if a.kind == "computation" or a.type == "computation":
            descriptions = [value] if isinstance(value, dict) else []
        elif a.type == "computation_list" and isinstance(value, list):
            descriptions = [v for v in value if isinstance(v, dict)]
        else:
            continue
        for desc in descriptions:
            unknown = [k for k in desc if k not in COMPUTATION_DESCRIPTION_KEYS]
            if unknown or ("op" in desc) == ("ops" in desc):
                raise ctx.fail(f"{where}.attrs.{key}", f"a computation description needs 'op' or 'ops' and takes "
                               f"only {', '.join(COMPUTATION_DESCRIPTION_KEYS)}; got {sorted(desc)}", m["attrs"], key)


@functools.cache
def load_all() -> dict[str, OpSpec]:
    """Every spec under specs/ops, keyed by op name (from the parsed-spec cache when it is current)."""
    paths = sorted(OPS_DIR.glob("*.yaml"))
    return spec_cache.cached("specs", spec_cache.content_key(paths), lambda: _load_paths(paths), codec=_CODEC,
                             check=lambda specs: _is_loaded(specs, paths))


#: The cache's strict encoding of the model: only these types come back from a cache file.
_CODEC = spec_cache.Codec(dataclass_types=(OpSpec, ArgSpec, FormArg, CallForm, Example, ErrorExample, Bound,
                                           Tolerance, ImplementationDefined),
                          tuple_types=(PerDevice,), constants={"_MISSING": _MISSING})


def _is_loaded(specs: Any, paths: list[Path]) -> bool:
    """Whether a value read from the cache is what :func:`_load_paths` gives for ``paths``: one OpSpec per file,
    keyed by its name, of a known family (a cache file holding anything else is not used)."""
    if not isinstance(specs, dict) or len(specs) != len(paths):
        return False
    files = set(paths)
    return all(isinstance(name, str) and isinstance(spec, OpSpec) and spec.name == name and spec.path in files
               and spec.family in FAMILIES and isinstance(spec.examples, tuple) and isinstance(spec.args, tuple)
               for name, spec in specs.items()) and {s.path for s in specs.values()} == files


def _load_paths(paths: list[Path]) -> dict[str, OpSpec]:
    out: dict[str, OpSpec] = {}
    for path in paths:
        spec = load_file(path)
        if spec.name in out:
            raise SpecError(f"{path.name}: op '{spec.name}' is also defined in {out[spec.name].path.name}")
        out[spec.name] = spec
    form_names: dict[str, str] = {}
    for spec in out.values():
        for form in spec.call_forms:
            if form.name is None:
                continue
            owner = form_names.setdefault(form.name, spec.name)
            if form.name in out or owner != spec.name:
                raise SpecError(f"{spec.path.name}: call form name '{form.name}' is already the name of "
                                f"{'an op' if form.name in out else 'a form of ' + owner}")
    return out


def get(name: str) -> OpSpec:
    specs = load_all()
    if name not in specs:
        raise SpecError(f"no spec for op '{name}'")
    return specs[name]
