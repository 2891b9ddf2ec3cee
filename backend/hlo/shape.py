"""Shapes and layouts, after the shapes-and-layout document.

A :class:`Shape` is an array shape (element type, dimension sizes, optional :class:`Layout`),
a tuple shape, or the token shape. A :class:`Layout` gives ``minor_to_major`` (default:
major-to-minor, i.e. ``(rank-1, ..., 0)``), and optionally ``padded_dimensions`` and a
``padding_value``. :func:`linear_index` / :func:`multi_index` convert between
multi-dimensional and linear indices for a shape and layout; :func:`to_linear_memory`
lays an array out in memory as the document describes.

Bounded dynamic dimensions: an array shape says, per dimension, whether its size is dynamic.
A dynamic dimension's size in the shape is its bound (the most it can hold); the size a value
actually has is only known at run time and lies in ``[0, bound]``. XLA prints such a dimension
``<=bound``: ``f32[<=5,3]`` has a dynamic dimension 0 of bound 5 and a static dimension 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from backend.errors import OpError
from backend.hlo import etypes
from backend.hlo.etypes import PrimitiveType
from backend.hlo.token import is_token

MAX_TUPLE_DEPTH = 64
"""How deep tuple shapes (and tuple values) may nest."""


class Layout:
    """``minor_to_major`` plus the optional padding of the shapes document."""

    __slots__ = ("minor_to_major", "padded_dimensions", "padding_value")

    def __init__(self, minor_to_major: Sequence[int], padded_dimensions: Sequence[int] | None = None,
                 padding_value: Any = 0) -> None:
        self.minor_to_major = tuple(int(d) for d in minor_to_major)
        if sorted(self.minor_to_major) != list(range(len(self.minor_to_major))):
            raise ValueError(f"minor_to_major {list(self.minor_to_major)} is not a permutation of "
                             f"0..{len(self.minor_to_major) - 1}")
        self.padded_dimensions = None if padded_dimensions is None else tuple(int(d) for d in padded_dimensions)
        if self.padded_dimensions is not None and len(self.padded_dimensions) != len(self.minor_to_major):
            raise ValueError(f"padded_dimensions {list(self.padded_dimensions)} must have one entry per "
                             f"dimension ({len(self.minor_to_major)})")
        self.padding_value = padding_value

    @staticmethod
    def major_to_minor(rank: int) -> Layout:
        """The default layout: dimension 0 is the most major."""
        return Layout(tuple(range(rank - 1, -1, -1)))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Layout) and self.minor_to_major == other.minor_to_major
                and self.padded_dimensions == other.padded_dimensions)

    def __hash__(self) -> int:
        return hash((self.minor_to_major, self.padded_dimensions))

    def __repr__(self) -> str:
        pad = f", padded_dimensions={list(self.padded_dimensions)}" if self.padded_dimensions else ""
        return f"Layout(minor_to_major={list(self.minor_to_major)}{pad})"

    def __str__(self) -> str:
        return "{" + ",".join(str(d) for d in self.minor_to_major) + "}"


class Shape:
    """An array, tuple or token shape (the surface of ``xla_client.Shape``)."""

    __slots__ = ("_etype", "_dims", "_layout", "_tuple", "_dynamic", "_depth")

    def __init__(self, etype: PrimitiveType, dims: tuple[int, ...] = (), layout: Layout | None = None,
                 tuple_shapes: tuple[Shape, ...] | None = None, dynamic: tuple[bool, ...] | None = None) -> None:
        self._etype = PrimitiveType(etype)
        self._dims = tuple(int(d) for d in dims)
        self._tuple = tuple_shapes
        # How deep tuples nest (0 for an array or a token). Shapes, values and graphs are walked
        # recursively everywhere (printing, hashing, jax's pytrees), so nesting is bounded up front.
        self._depth = 0 if tuple_shapes is None else 1 + max((_depth_of(t) for t in tuple_shapes), default=0)
        if self._depth > MAX_TUPLE_DEPTH:
            raise OpError("Shape.tuple_shape", "tuple-depth", f"tuples nest at most {MAX_TUPLE_DEPTH} deep; this "
                          f"shape would nest {self._depth} deep", arg="shapes",
                          values={"depth": self._depth, "limit": MAX_TUPLE_DEPTH})
        if layout is not None and len(layout.minor_to_major) != len(self._dims):
            raise ValueError(f"layout {list(layout.minor_to_major)} does not match rank {len(self._dims)}")
        self._layout = layout
        self._dynamic = (False,) * len(self._dims) if dynamic is None else tuple(bool(d) for d in dynamic)
        if len(self._dynamic) != len(self._dims):
            raise ValueError(f"dynamic_dimensions {list(self._dynamic)} must have one entry per dimension "
                             f"({len(self._dims)})")

    # -- constructors -------------------------------------------------------------------
    @staticmethod
    def array_shape(element_type: Any, dims: Iterable[int], layout: Sequence[int] | Layout | None = None,
                    dynamic_dimensions: Sequence[bool] | None = None) -> Shape:
        """``Shape.array_shape(PrimitiveType.F32, (2, 3))``; a NumPy dtype works as the type too.

        ``dynamic_dimensions`` (one bool per dimension) marks bounded-dynamic dimensions, whose
        size in ``dims`` is the bound: ``Shape.array_shape(F32, (5, 3), dynamic_dimensions=[True, False])``
        is ``f32[<=5,3]``.
        """
        op = "Shape.array_shape"
        et = _as_etype(element_type, op)
        if et in (PrimitiveType.TUPLE, PrimitiveType.PRIMITIVE_TYPE_INVALID):  # TOKEN with no dims: the token shape
            raise OpError(op, "arg-type", f"an array's element type cannot be {et.name} (Shape.tuple_shape makes "
                          "tuple shapes)", arg="element_type", values={"element_type": et})
        dims = _int_sequence(dims, op, "dims")
        if any(d < 0 for d in dims):
            raise OpError(op, "arg-type", f"dimension sizes must be >= 0, got {list(dims)}", arg="dims",
                          values={"dims": list(dims)})
        if layout is not None and not isinstance(layout, Layout):
            minor_to_major = _int_sequence(layout, op, "layout")
            try:
                layout = Layout(minor_to_major)
            except ValueError as e:
                raise OpError(op, "arg-type", str(e), arg="layout", values={"layout": list(minor_to_major)}) from None
        if layout is not None and len(layout.minor_to_major) != len(dims):
            raise OpError(op, "arg-type", f"layout {list(layout.minor_to_major)} does not match rank {len(dims)}",
                          arg="layout", values={"layout": list(layout.minor_to_major), "dims": list(dims)})
        dynamic = None
        if dynamic_dimensions is not None:
            if isinstance(dynamic_dimensions, (str, bytes)) or not isinstance(dynamic_dimensions, Iterable):
                raise OpError(op, "arg-type", f"dynamic_dimensions must be a sequence of bools, got "
                              f"{dynamic_dimensions!r}", arg="dynamic_dimensions")
            dynamic = tuple(dynamic_dimensions)
            if not all(isinstance(d, (bool, np.bool_)) for d in dynamic):
                raise OpError(op, "arg-type", f"dynamic_dimensions must be a sequence of bools, got "
                              f"{list(dynamic)}", arg="dynamic_dimensions")
            if len(dynamic) != len(dims):
                raise OpError(op, "arg-type", f"dynamic_dimensions {[bool(d) for d in dynamic]} must have one "
                              f"entry per dimension ({len(dims)})", arg="dynamic_dimensions")
        return Shape(et, dims, layout, dynamic=dynamic)

    @staticmethod
    def scalar_shape(element_type: Any) -> Shape:
        return Shape.array_shape(element_type, ())

    @staticmethod
    def tuple_shape(shapes: Iterable[Shape]) -> Shape:
        if isinstance(shapes, (str, bytes, Shape)) or not isinstance(shapes, Iterable):
            raise OpError("Shape.tuple_shape", "arg-type", f"tuple_shape takes a sequence of Shapes, got "
                          f"{type(shapes).__name__}", arg="shapes")
        shapes = tuple(shapes)
        for s in shapes:
            if not isinstance(s, Shape):
                raise OpError("Shape.tuple_shape", "arg-type", f"tuple_shape takes Shapes, got {type(s).__name__}",
                              arg="shapes")
        return Shape(PrimitiveType.TUPLE, (), None, shapes)

    @staticmethod
    def token_shape() -> Shape:
        return Shape(PrimitiveType.TOKEN)

    # -- queries --------------------------------------------------------------------------
    def element_type(self) -> PrimitiveType:
        return self._etype

    def dimensions(self) -> tuple[int, ...]:
        return self._dims

    def rank(self) -> int:
        return len(self._dims)

    def is_dynamic_dimension(self, dimension: int) -> bool:
        """Whether ``dimension`` is bounded-dynamic (its size in :meth:`dimensions` is the bound)."""
        if not 0 <= dimension < len(self._dims):
            raise ValueError(f"dimension {dimension} is out of range for {self} (rank {len(self._dims)})")
        return self._dynamic[dimension]

    def dynamic_dimensions(self) -> tuple[bool, ...]:
        return self._dynamic

    def is_static(self) -> bool:
        """No dynamic dimension, here or in any tuple element."""
        if self.is_tuple():
            return all(s.is_static() for s in self.tuple_shapes())
        return not any(self._dynamic)

    def is_dynamic(self) -> bool:
        return not self.is_static()

    def with_dynamic_dimensions(self, dynamic_dimensions: Sequence[bool]) -> Shape:
        return Shape.array_shape(self._etype, self._dims, self._layout, dynamic_dimensions)

    def is_tuple(self) -> bool:
        return self._etype == PrimitiveType.TUPLE

    def is_token(self) -> bool:
        return self._etype == PrimitiveType.TOKEN

    def is_array(self) -> bool:
        return not (self.is_tuple() or self.is_token())

    def tuple_shapes(self) -> tuple[Shape, ...]:
        if not self.is_tuple():
            raise ValueError(f"{self} is not a tuple shape")
        return self._tuple or ()

    def leaf_shapes(self) -> list[Shape]:
        """The array and token shapes of a (nested) tuple, depth-first; ``[self]`` for an array or a token."""
        return [leaf for s in self.tuple_shapes() for leaf in s.leaf_shapes()] if self.is_tuple() else [self]

    def numpy_dtype(self) -> np.dtype:
        return etypes.etype_to_dtype(self._etype)

    def layout(self) -> Layout:
        """The layout; the default major-to-minor one when none was given."""
        return self._layout if self._layout is not None else Layout.major_to_minor(self.rank())

    def element_count(self) -> int:
        return int(np.prod(self._dims, dtype=np.int64)) if self._dims else 1

    def with_element_type(self, etype: PrimitiveType) -> Shape:
        return Shape(etype, self._dims, self._layout, dynamic=self._dynamic)

    def with_major_to_minor_layout_if_absent(self) -> Shape:
        if self.is_tuple():
            return Shape.tuple_shape(s.with_major_to_minor_layout_if_absent() for s in self.tuple_shapes())
        return Shape(self._etype, self._dims, self.layout(), dynamic=self._dynamic)

    # -- dunder ---------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shape):
            return NotImplemented
        return (self._etype == other._etype and self._dims == other._dims
                and self._dynamic == other._dynamic and self._tuple == other._tuple)

    def __hash__(self) -> int:
        return hash((self._etype, self._dims, self._dynamic, self._tuple))

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        if self.is_tuple():
            return "(" + ", ".join(str(s) for s in self.tuple_shapes()) + ")"
        if self.is_token():
            return "token[]"
        dims = ",".join(f"<={d}" if dyn else str(d) for d, dyn in zip(self._dims, self._dynamic))
        return f"{etypes.short_name(self._etype)}[{dims}]"

    def to_string(self, with_layout: bool = True) -> str:
        if self.is_tuple():
            return "(" + ", ".join(s.to_string(with_layout) for s in self.tuple_shapes()) + ")"
        return str(self) + (str(self.layout()) if with_layout and self.is_array() else "")


def _as_etype(element_type: Any, op: str) -> PrimitiveType:
    """A PrimitiveType from a PrimitiveType, its number, its name (``f32``, ``F32``) or a NumPy dtype."""
    try:
        if isinstance(element_type, PrimitiveType):
            return element_type
        if isinstance(element_type, (int, np.integer)) and not isinstance(element_type, (bool, np.bool_)):
            return PrimitiveType(int(element_type))
        if isinstance(element_type, str):
            return etypes.from_short_name(element_type)
        if element_type is None or isinstance(element_type, (bool, float, complex, list, tuple, dict, bytes)):
            raise ValueError(f"not an element type: {element_type!r}")
        return etypes.dtype_to_etype(element_type)
    except (TypeError, ValueError) as e:
        raise OpError(op, "arg-type", f"element_type must be a PrimitiveType, its name or a NumPy dtype: {e}",
                      arg="element_type", values={"element_type": repr(element_type)[:80]}) from None


def _int_sequence(value: Any, op: str, arg: str) -> tuple[int, ...]:
    """``value`` as a tuple of Python ints: a sequence of ints (not bools, floats or strings)."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise OpError(op, "arg-type", f"{arg} must be a sequence of ints, got {type(value).__name__}", arg=arg,
                      values={arg: repr(value)[:80]})
    items = tuple(value)
    bad = [v for v in items if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))]
    if bad:
        raise OpError(op, "arg-type", f"{arg} must be a sequence of ints, got {repr(list(items))[:80]}", arg=arg,
                      values={arg: repr(list(items))[:80]})
    return tuple(int(v) for v in items)


def _depth_of(shape: Shape) -> int:
    """``shape``'s tuple nesting depth; counted (without recursion) for a Shape made without ``__init__`` (one
    unpickled from a version without the ``_depth`` slot)."""
    depth = getattr(shape, "_depth", None)
    if depth is not None:
        return int(depth)
    deepest, pending = 0, [(shape, 0)]
    while pending:
        current, level = pending.pop()
        inner = getattr(current, "_tuple", None)
        if inner is not None:
            deepest = max(deepest, level + 1)
            pending.extend((t, level + 1) for t in inner)
    return deepest


def tuple_depth(pyval: Any) -> int:
    """How deep Python tuples nest in ``pyval`` (0 for anything else), found without recursion."""
    depth, pending = 0, [(pyval, 0)]
    while pending:
        value, level = pending.pop()
        if isinstance(value, tuple):
            depth = max(depth, level + 1)
            if depth > MAX_TUPLE_DEPTH:
                return depth
            pending.extend((v, level + 1) for v in value)
    return depth


def shape_from_pyval(pyval: Any) -> Shape:
    """The shape of a NumPy array, a Python scalar, a token value (``backend.hlo.token.Token``), or a tuple of those."""
    if isinstance(pyval, tuple) and tuple_depth(pyval) > MAX_TUPLE_DEPTH:
        raise OpError("shape_from_pyval", "tuple-depth", f"tuples nest at most {MAX_TUPLE_DEPTH} deep; this value "
                      f"nests deeper", arg="pyval", values={"limit": MAX_TUPLE_DEPTH})
    if is_token(pyval):
        return Shape.token_shape()
    if isinstance(pyval, tuple):
        return Shape.tuple_shape(shape_from_pyval(v) for v in pyval)
    arr = np.asarray(pyval)
    return Shape.array_shape(etypes.dtype_to_etype(arr.dtype), arr.shape)


def runtime_size_mismatch(shape: Shape, runtime_dims: Sequence[int]) -> str | None:
    """Why an array of ``runtime_dims`` cannot be a value of ``shape``, or None when it can.

    A static dimension must have exactly its size; a dynamic one any size in ``[0, bound]``.
    """
    if len(runtime_dims) != shape.rank():
        return f"rank {len(runtime_dims)} differs from the rank {shape.rank()} of {shape}"
    for i, (size, bound, dynamic) in enumerate(zip(runtime_dims, shape.dimensions(), shape.dynamic_dimensions())):
        if dynamic and not 0 <= size <= bound:
            return f"dimension {i} has runtime size {size}, outside [0, {bound}] of {shape}"
        if not dynamic and size != bound:
            return f"dimension {i} has size {size}, but it is static with size {bound} in {shape}"
    return None


def broadcast_dynamic_dimensions(out_dims: Sequence[int], operands: Iterable[tuple[Shape, Sequence[int]]]
                                 ) -> tuple[bool, ...]:
    """Which result dimensions are dynamic when each ``(shape, placement)`` operand maps its dimension ``i``
    to result dimension ``placement[i]`` (element-wise ops, BroadcastInDim).

    A result dimension is dynamic where a dynamic operand dimension of the same bound maps to it. A
    dimension of size 1 that broadcasts to a larger one does not pass its dynamism on (XLA's rule:
    ``<=X`` with ``1`` gives ``<=X``, ``1`` with ``X`` gives ``X``).
    """
    dynamic = [False] * len(out_dims)
    for shape, placement in operands:
        for i, d in enumerate(placement):
            if shape.is_dynamic_dimension(i) and shape.dimensions()[i] == out_dims[d]:
                dynamic[d] = True
    return tuple(dynamic)


def canonical_dimension(dim: int, rank: int) -> int:
    """Python-style negative dimension numbers: -1 is the last dimension."""
    if not -rank <= dim < rank:
        raise ValueError(f"dimension {dim} is out of range for rank {rank}")
    return dim + rank if dim < 0 else dim


# -- index conversion (the document's IndexUtil) ---------------------------------------------
def _physical_sizes(shape: Shape) -> tuple[int, ...]:
    layout = shape.layout()
    return layout.padded_dimensions if layout.padded_dimensions is not None else shape.dimensions()


def linear_index(shape: Shape, index: Sequence[int]) -> int:
    """The position of ``index`` in linear memory under the shape's layout (and padding)."""
    dims = shape.dimensions()
    if len(index) != len(dims):
        raise ValueError(f"index {list(index)} has {len(index)} entries, shape {shape} has rank {len(dims)}")
    for i, (x, d) in enumerate(zip(index, dims)):
        if not 0 <= x < d:
            raise ValueError(f"index {list(index)} is out of bounds in dimension {i} of {shape}")
    sizes = _physical_sizes(shape)
    linear, stride = 0, 1
    for dim in shape.layout().minor_to_major:
        linear += index[dim] * stride
        stride *= sizes[dim]
    return linear


def multi_index(shape: Shape, linear: int) -> tuple[int, ...]:
    """Inverse of :func:`linear_index` (for positions that hold an element)."""
    sizes = _physical_sizes(shape)
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    if not 0 <= linear < total:
        raise ValueError(f"linear index {linear} is out of range [0, {total}) for {shape}")
    index = [0] * shape.rank()
    rest = linear
    for dim in shape.layout().minor_to_major:
        index[dim] = rest % sizes[dim]
        rest //= sizes[dim]
    for i, (x, d) in enumerate(zip(index, shape.dimensions())):
        if x >= d:
            raise ValueError(f"linear index {linear} falls in the padding of dimension {i} of {shape}")
    return tuple(index)


def physical_size(shape: Shape) -> int:
    """The number of elements the array's linear memory holds under its layout (padding included)."""
    return int(np.prod(_physical_sizes(shape), dtype=np.int64))


def bitcast_source_positions(operand: Shape, result: Shape) -> np.ndarray:
    """For a bitcast from ``operand`` to ``result`` (the same linear memory, read under each one's layout):
    per result element (an array of the result's dimensions), the row-major position of the operand
    element it reads, or ``operand.element_count`` where it reads the operand layout's padding."""
    count = int(np.prod(operand.dimensions(), dtype=np.int64))
    memory = to_linear_memory(np.arange(count, dtype=np.int64).reshape(operand.dimensions()),
                              _with_padding_value(operand, count))
    layout = result.layout()
    major_to_minor = tuple(reversed(layout.minor_to_major))
    sizes = _physical_sizes(result)
    physical = memory.reshape([sizes[d] for d in major_to_minor]).transpose(np.argsort(major_to_minor))
    return physical[tuple(slice(0, d) for d in result.dimensions())]


def _with_padding_value(shape: Shape, value: int) -> Shape:
    layout = shape.layout()
    return Shape.array_shape(shape.element_type(), shape.dimensions(),
                             Layout(layout.minor_to_major, layout.padded_dimensions, value))


def to_linear_memory(array: np.ndarray, shape: Shape) -> np.ndarray:
    """The array's elements in linear-memory order under ``shape``'s layout, padding included."""
    if tuple(array.shape) != shape.dimensions():
        raise ValueError(f"array of shape {array.shape} does not match {shape}")
    layout = shape.layout()
    sizes = _physical_sizes(shape)
    padded = np.full(sizes, layout.padding_value, dtype=array.dtype)
    padded[tuple(slice(0, d) for d in shape.dimensions())] = array
    # Transpose so the most major dimension comes first, then read row-major.
    return padded.transpose(tuple(reversed(layout.minor_to_major))).reshape(-1)
