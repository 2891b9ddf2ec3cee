"""The computation graph: :class:`XlaBuilder`, :class:`XlaOp`, :class:`XlaComputation`.

Ops are added by the spec-driven functions of :mod:`backend.ops`; this module holds only the
graph, its text form and the program shape.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from backend import attributes
from backend.api_types import OpMetadata, OpSharding
from backend.errors import OpError
from backend.shape import Shape

_ids = itertools.count()


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
        inst = self.builder._instructions[self.id]
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
        self.uid = next(_ids)
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
            attrs = "".join(f", {k}={attributes.render(v)}" for k, v in inst.attrs.items()
                            if v is not None and not (k == "name" and inst.opcode == "Parameter"))
            if inst.opcode == "Parameter":  # HLO's form: parameter(N); the shape is on the left
                args, attrs = str(inst.attrs["number"]), ""
            if inst.sharding is not None:
                attrs += f", sharding={inst.sharding}"
            if inst.metadata is not None:
                attrs += f", metadata={inst.metadata}"
            root = "ROOT " if inst.id == self.root else ""
            lines.append(f"  {root}{inst.name} = {inst.shape.to_string()} {_hlo_opcode(inst.opcode)}({args}){attrs}")
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
        from backend.export import stablehlo_text
        return stablehlo_text(self, platform)

    def as_stablehlo_bytecode(self, platform: str = "cpu") -> bytes:
        """The StableHLO module as a versioned portable artifact (MLIR bytecode); see :mod:`backend.export`."""
        from backend.export import stablehlo_bytecode
        return stablehlo_bytecode(self, platform)

    def __str__(self) -> str:
        return self.as_hlo_text()


def _hlo_opcode(op: str) -> str:
    """CamelCase op name -> HLO's kebab-case opcode (``BroadcastInDim`` -> ``broadcast-in-dim``)."""
    out = ""
    for i, ch in enumerate(op):
        if ch.isupper() and i and not op[i - 1].isupper():
            out += "-"
        out += ch.lower()
    return out


class XlaBuilder:
    """Builds one computation; ``build(root=None)`` (root defaults to the last op built)."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise OpError("XlaBuilder", "arg-type", f"a builder needs a non-empty name, got {name!r}", "name")
        self.name = name
        self._instructions: dict[int, Instruction] = {}
        self._order: list[int] = []
        self._built = False
        self._metadata: OpMetadata | None = None
        self._sharding: OpSharding | None = None

    def add_instruction(self, opcode: str, operands: list[XlaOp], operand_args: tuple[tuple[str, int | None], ...],
                        attrs: dict[str, Any], shape: Shape) -> XlaOp:
        id = next(_ids)
        label = str(attrs.get("name") or "") if opcode == "Parameter" else ""
        name = f"{label or _hlo_opcode(opcode)}.{len(self._order)}"
        inst = Instruction(id, opcode, tuple(o.id for o in operands), operand_args, dict(attrs), shape, name,
                           self._metadata, self._sharding)
        self._instructions[id] = inst
        self._order.append(id)
        return XlaOp(self, id)

    def get_shape(self, op: XlaOp) -> Shape:
        self._check_owned(op)
        return self._instructions[op.id].shape

    def instruction(self, op: XlaOp) -> Instruction:
        self._check_owned(op)
        return self._instructions[op.id]

    def parameter_numbers(self) -> set[int]:
        return {i.attrs["number"] for i in self._instructions.values() if i.opcode == "Parameter"}

    def _check_owned(self, op: XlaOp) -> None:
        if not isinstance(op, XlaOp) or op.builder is not self or op.id not in self._instructions:
            raise OpError("XlaBuilder", "arg-type", f"{op!r} does not belong to builder '{self.name}'")

    def get_program_shape(self, root: XlaOp | None = None) -> ProgramShape:
        return self._computation(root).program_shape()

    def _computation(self, root: XlaOp | None) -> XlaComputation:
        if not self._order:
            raise OpError("XlaBuilder", "build", f"builder '{self.name}' has no instructions")
        if root is not None:
            self._check_owned(root)
        root_id = root.id if root is not None else self._order[-1]
        numbers = sorted(self.parameter_numbers())
        if numbers != list(range(len(numbers))):
            raise OpError("XlaBuilder", "build", f"parameter numbers must be 0..n-1 without gaps, got {numbers}")
        return XlaComputation(self.name, [self._instructions[i] for i in self._order], root_id)

    def build(self, root: XlaOp | None = None) -> XlaComputation:
        """The computation; its result is ``root`` (default: the last op built)."""
        return self._computation(root)

    def is_constant(self, op: XlaOp) -> bool:
        """Whether ``op``'s value depends on no parameter (it could be computed while building)."""
        self._check_owned(op)
        pending, seen = [op.id], set()
        while pending:
            inst = self._instructions[pending.pop()]
            if inst.opcode == "Parameter":
                return False
            for operand in inst.operands:
                if operand not in seen:
                    seen.add(operand)
                    pending.append(operand)
        return True

    def set_op_metadata(self, metadata: OpMetadata) -> None:
        """Attach ``metadata`` (an OpMetadata: op_type, op_name, source_file, source_line) to every op added
        from now on until :meth:`clear_op_metadata`; the text form shows it as HLO's ``metadata={...}``."""
        try:
            self._metadata = attributes.op_metadata(metadata)
        except (TypeError, ValueError) as e:
            raise OpError("XlaBuilder.set_op_metadata", "arg-type", str(e), "metadata") from None

    def clear_op_metadata(self) -> None:
        """Ops added from now on carry no metadata."""
        self._metadata = None

    def set_sharding(self, sharding: OpSharding) -> None:
        """Attach ``sharding`` (an OpSharding) to every op added from now on until :meth:`clear_sharding`; the
        text form shows it as HLO's ``sharding={...}``. It is an annotation for XLA's SPMD partitioner: the
        backends here run each op whole (a sharding changes no value), and run several devices through
        ``execute(..., replicas=, partitions=)`` instead."""
        try:
            self._sharding = attributes.op_sharding(sharding)
        except (TypeError, ValueError) as e:
            raise OpError("XlaBuilder.set_sharding", "arg-type", str(e), "sharding") from None

    def clear_sharding(self) -> None:
        """Ops added from now on carry no sharding."""
        self._sharding = None

    Build = build
