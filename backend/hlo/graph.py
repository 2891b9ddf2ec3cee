"""The computation graph: :class:`Instruction`, :class:`XlaOp`, :class:`XlaComputation` and its HLO text form.

Ops are added by the spec-driven functions of :mod:`backend.ops`; this module holds only the
graph, its text form and the program shape.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from backend.errors import UnsupportedError
from backend.hlo import etypes
from backend.hlo.attribute_types import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FftType,
    GatherDimensionNumbers,
    OpMetadata,
    OpSharding,
    PaddingConfig,
    PrecisionConfig,
    RaggedDotDimensionNumbers,
    RandomAlgorithm,
    ResultAccuracy,
    ScatterDimensionNumbers,
    TriangularSolveOptions_Transpose,
)
from backend.hlo.etypes import PrimitiveType
from backend.hlo.shape import Shape

_ids = itertools.count()

if TYPE_CHECKING:
    from backend.hlo.builder import XlaBuilder


def next_id() -> int:
    """A fresh id for an instruction or a computation (unique in the process)."""
    return next(_ids)


@dataclasses.dataclass(frozen=True)
class Instruction:
    """One node: opcode (the spec's op name), operand ids, attributes and result shape.

    ``operand_args`` gives, in spec order, each operand argument's name and its number of
    operands (``None`` for a single operand, an int for a variadic one).
    """

    id: int
    opcode: str
    operands: tuple[int, ...]
    operand_args: tuple[tuple[str, int | None], ...]
    attrs: dict[str, Any]
    shape: Shape
    name: str
    metadata: OpMetadata | None = None  # set_op_metadata's value when the instruction was added
    sharding: OpSharding | None = None  # set_sharding's value when the instruction was added

    def grouped(self, values: list[Any]) -> list[Any]:
        """Operand values grouped as the spec's arguments (variadic ones as lists)."""
        out, i = [], 0
        for _, count in self.operand_args:
            if count is None:
                out.append(values[i])
                i += 1
            else:
                out.append(list(values[i:i + count]))
                i += count
        return out


class XlaOp:
    """A handle to an instruction of a builder."""

    __slots__ = ("builder", "id")

    def __init__(self, builder: XlaBuilder, id: int) -> None:
        self.builder = builder
        self.id = id

    def shape(self) -> Shape:
        return self.builder.get_shape(self)

    def __repr__(self) -> str:
        instructions = getattr(self.builder, "_instructions", None)
        inst = instructions.get(self.id) if isinstance(instructions, dict) else None
        if inst is None:
            name = getattr(self.builder, "name", None)
            where = f"builder '{name}'" if isinstance(name, str) else f"a {type(self.builder).__name__}"
            return f"XlaOp(id {self.id!r}, not an instruction of {where})"
        return f"XlaOp({inst.name}: {inst.shape})"


class ProgramShape:
    """Parameter shapes and names, and the result shape, of a computation."""

    def __init__(self, parameter_shapes: list[Shape], parameter_names: list[str], result_shape: Shape) -> None:
        self._params = list(parameter_shapes)
        self._names = list(parameter_names)
        self._result = result_shape

    def parameter_shapes(self) -> list[Shape]:
        return list(self._params)

    def parameter_names(self) -> list[str]:
        return list(self._names)

    def result_shape(self) -> Shape:
        return self._result

    def __str__(self) -> str:
        params = ", ".join(f"{n}: {s.to_string()}" for n, s in zip(self._names, self._params))
        return f"({params}) -> {self._result.to_string()}"

    __repr__ = __str__


class ComputationName(str):
    """A computation's name: a string, and callable as xla_client's ``XlaComputation.name()``."""

    def __call__(self) -> str:
        return str(self)


class XlaComputation:
    """A built, immutable computation. ``name`` is its name (also callable: ``name()``, as xla_client)."""

    def __init__(self, name: str, instructions: list[Instruction], root: int) -> None:
        self.name = ComputationName(name)
        self.instructions = tuple(i for i in instructions)
        self.root = root
        self.uid = next_id()
        self._by_id = {i.id: i for i in self.instructions}

    def instruction(self, id: int) -> Instruction:
        return self._by_id[id]

    @property
    def root_instruction(self) -> Instruction:
        return self._by_id[self.root]

    @property
    def parameters(self) -> list[Instruction]:
        return sorted((i for i in self.instructions if i.opcode == "Parameter"), key=lambda i: i.attrs["number"])

    def program_shape(self) -> ProgramShape:
        params = self.parameters
        return ProgramShape([p.shape for p in params], [p.attrs.get("name") or p.name for p in params],
                            self.root_instruction.shape)

    def get_program_shape(self) -> ProgramShape:
        return self.program_shape()

    def subcomputations(self) -> list[XlaComputation]:
        """Every computation this one calls, transitively, callees first, each once.

        Iterative (an explicit stack), so a chain of thousands of nested calls is fine."""
        done: dict[int, XlaComputation] = {}
        entered = {self.uid}
        stack = [(self, iter(self.called_computations()))]
        while stack:
            comp, callees = stack[-1]
            sub = next((c for c in callees if c.uid not in entered), None)
            if sub is not None:
                entered.add(sub.uid)
                stack.append((sub, iter(sub.called_computations())))
                continue
            stack.pop()
            if stack:
                done[comp.uid] = comp
        return list(done.values())

    def called_computations(self) -> list[XlaComputation]:
        """The computations this one's instructions name directly, in order."""
        out = []
        for inst in self.instructions:
            for value in inst.attrs.values():
                for sub in (value if isinstance(value, (list, tuple)) else (value,)):
                    if isinstance(sub, XlaComputation):
                        out.append(sub)
        return out

    def _body_text(self, entry: bool) -> str:
        by_id = self._by_id
        lines = []
        for inst in self.instructions:
            args = ", ".join(by_id[o].name for o in inst.operands)
            attrs = "".join(f", {k}={render(v)}" for k, v in inst.attrs.items()
                            if v is not None and not (k == "name" and inst.opcode == "Parameter"))
            if inst.opcode == "Parameter":  # HLO's form: parameter(N); the shape is on the left
                args, attrs = str(inst.attrs["number"]), ""
            if inst.sharding is not None:
                attrs += f", sharding={inst.sharding}"
            if inst.metadata is not None:
                attrs += f", metadata={inst.metadata}"
            root = "ROOT " if inst.id == self.root else ""
            lines.append(f"  {root}{inst.name} = {inst.shape.to_string()} {hlo_opcode(inst.opcode)}({args}){attrs}")
        head = "ENTRY " if entry else ""
        return f"{head}{self.name} {{\n" + "\n".join(lines) + "\n}"

    def as_hlo_text(self) -> str:
        """A readable HLO-like text form, sub-computations first."""
        ps = self.program_shape()
        sig = "(" + ", ".join(s.to_string() for s in ps.parameter_shapes()) + ")->" + ps.result_shape().to_string()
        parts = [f"HloModule {self.name}, entry_computation_layout={{{sig}}}"]
        parts += [sub._body_text(False) for sub in self.subcomputations()]
        parts.append(self._body_text(True))
        return "\n\n".join(parts) + "\n"

    def as_stablehlo_text(self, platform: str = "cpu") -> str:
        """The StableHLO module (MLIR text) of the jax backend's lowering for ``platform``
        (see :mod:`backend.export`)."""
        return _exporter().stablehlo_text(self, platform)

    def as_stablehlo_bytecode(self, platform: str = "cpu") -> bytes:
        """The StableHLO module as a versioned portable artifact (MLIR bytecode); see :mod:`backend.export`."""
        return _exporter().stablehlo_bytecode(self, platform)

    def __str__(self) -> str:
        return self.as_hlo_text()


def hlo_opcode(op: str) -> str:
    """CamelCase op name -> HLO's kebab-case opcode (``BroadcastInDim`` -> ``broadcast-in-dim``)."""
    out = ""
    for i, ch in enumerate(op):
        if ch.isupper() and i and not op[i - 1].isupper():
            out += "-"
        out += ch.lower()
    return out


def reaches(instruction: Callable[[int], Instruction], start: int, found: Callable[[Instruction], bool]) -> bool:
    """Whether ``found`` holds for the instruction ``start`` or any instruction its value is computed from
    (``instruction`` looks an id up; iterative, so any depth)."""
    pending, seen = [start], {start}
    while pending:
        current = instruction(pending.pop())
        if found(current):
            return True
        for operand in current.operands:
            if operand not in seen:
                seen.add(operand)
                pending.append(operand)
    return False


class StableHloExporter(Protocol):
    """What :meth:`XlaComputation.as_stablehlo_text` and ``as_stablehlo_bytecode`` call: the export layer
    (:mod:`backend.export`), which sits above this one and installs itself with :func:`set_stablehlo_exporter`."""

    def stablehlo_text(self, computation: XlaComputation, platform: str) -> str: ...

    def stablehlo_bytecode(self, computation: XlaComputation, platform: str) -> bytes: ...


_EXPORTER: list[StableHloExporter] = []


def set_stablehlo_exporter(exporter: StableHloExporter) -> None:
    """Install the exporter the ``as_stablehlo_*`` methods call (the ``backend`` package does, on import)."""
    _EXPORTER[:] = [exporter]


def _exporter() -> StableHloExporter:
    if not _EXPORTER:
        raise UnsupportedError("export", "StableHLO", "no StableHLO exporter is installed (import backend.export)")
    return _EXPORTER[0]


def render(value: Any) -> str:
    """An attribute value as it appears in the HLO-like text."""
    if isinstance(value, (DotDimensionNumbers, RaggedDotDimensionNumbers, PrecisionConfig, ConvolutionDimensionNumbers,
                          GatherDimensionNumbers, ScatterDimensionNumbers, PaddingConfig, ResultAccuracy)):
        return str(value)
    if isinstance(value, RandomAlgorithm):
        return value.name
    if isinstance(value, (ComparisonDirection, ComparisonType)):
        return value.value
    if isinstance(value, (TriangularSolveOptions_Transpose, FftType)):
        return value.name
    if isinstance(value, PrimitiveType):
        return etypes.short_name(value)
    if isinstance(value, tuple):
        return "{" + ",".join(render(x) for x in value) + "}"
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=",", threshold=16).replace("\n", "")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, XlaComputation):
        return value.name
    return str(value)
