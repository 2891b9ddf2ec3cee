"""XlaBuilder: adds instructions to a graph and builds an :class:`~backend.hlo.graph.XlaComputation`.

The ops themselves are added by the spec-driven functions of :mod:`backend.ops`.
"""

from __future__ import annotations

from typing import Any

from backend.errors import OpError
from backend.hlo import attributes
from backend.hlo.attribute_types import OpMetadata, OpSharding
from backend.hlo.graph import Instruction, ProgramShape, XlaComputation, XlaOp, hlo_opcode, next_id, reaches
from backend.hlo.shape import Shape


class XlaBuilder:
    """Builds one computation; ``build(root=None)`` (root defaults to the last op built)."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise OpError("XlaBuilder", "arg-type", f"a builder needs a non-empty name, got {name!r}", "name")
        self.name = name
        self._instructions: dict[int, Instruction] = {}
        self._order: list[int] = []
        self._parameter_numbers: set[int] = set()  # kept as Parameters are added: a look-up is O(1)
        self._built = False
        self._metadata: OpMetadata | None = None
        self._sharding: OpSharding | None = None

    def add_instruction(self, opcode: str, operands: list[XlaOp], operand_args: tuple[tuple[str, int | None], ...],
                        attrs: dict[str, Any], shape: Shape) -> XlaOp:
        id = next_id()
        label = str(attrs.get("name") or "") if opcode == "Parameter" else ""
        name = f"{label or hlo_opcode(opcode)}.{len(self._order)}"
        inst = Instruction(id, opcode, tuple(o.id for o in operands), operand_args, dict(attrs), shape, name,
                           self._metadata, self._sharding)
        self._instructions[id] = inst
        self._order.append(id)
        if opcode == "Parameter":
            self._parameter_numbers.add(attrs["number"])
        return XlaOp(self, id)

    def get_shape(self, op: XlaOp) -> Shape:
        self._check_owned(op)
        return self._instructions[op.id].shape

    def instruction(self, op: XlaOp) -> Instruction:
        self._check_owned(op)
        return self._instructions[op.id]

    def parameter_numbers(self) -> set[int]:
        """The numbers of the Parameters added so far (a copy)."""
        return set(self._parameter_numbers)

    def has_parameter(self, number: int) -> bool:
        """Whether a Parameter numbered ``number`` has been added (O(1))."""
        return number in self._parameter_numbers

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
        numbers = sorted(self._parameter_numbers)
        if numbers != list(range(len(numbers))):
            raise OpError("XlaBuilder", "build", f"parameter numbers must be 0..n-1 without gaps, got {numbers}")
        return XlaComputation(self.name, [self._instructions[i] for i in self._order], root_id)

    def build(self, root: XlaOp | None = None) -> XlaComputation:
        """The computation; its result is ``root`` (default: the last op built)."""
        return self._computation(root)

    def is_constant(self, op: XlaOp) -> bool:
        """Whether ``op``'s value depends on no parameter (it could be computed while building)."""
        self._check_owned(op)
        return not reaches(self._instructions.__getitem__, op.id, lambda inst: inst.opcode == "Parameter")

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
