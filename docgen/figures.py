"""Figures of the ops whose upstream page explains them with a picture (Pad, ConvGeneralDilated, ReduceWindow,
Gather, Scatter), drawn from one golden example of the op's spec.

Which input elements each result element reads is found, not drawn by hand: the reference evaluates the example
once per element of its data inputs with that element raised by 1000 (it then changes any sum and tops any
window's maximum), and a result element reads the input elements whose change changes it. A result element and
the elements it reads share a colour; a result element that reads none (padding, an initial value) is grey.

The figures are SVG written here, not by matplotlib: grids of numbered cells need no plotting library, the bytes
are the same on every machine (matplotlib's SVG carries its version and needs pinned fonts for that), and the
page build needs nothing beyond the base install.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from backend.backends import get_backend
from backend.hlo.shape import shape_from_pyval
from conformance.build import build_case
from specs.loader import Example, OpSpec


@dataclasses.dataclass(frozen=True)
class FigureSpec:
    example: str  # the golden example drawn
    data: tuple[str, ...]  # the inputs whose elements the result reads (the others are shown uncoloured)


FIGURES = {
    "Pad": FigureSpec("interior_and_negative_edges", ("operand",)),
    "ConvGeneralDilated": FigureSpec("seed_pseudocode_2d", ("lhs",)),
    "ReduceWindow": FigureSpec("seed_max_2x3", ("operands",)),
    "Gather": FigureSpec("batched_dynamic_slice", ("operand",)),
    "Scatter": FigureSpec("add_rows", ("operands", "updates")),
}
#: Added to an input element to see which result elements read it.
RAISE = 1000
PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5", "#bc80bd",
           "#ccebc5", "#ffed6f", "#d9d9d9")
UNREAD = "#eeeeee"  # a result element that reads no data input
WHITE = "#ffffff"
CELL_W, CELL_H, GAP, LABEL_H = 34, 24, 28, 34

#: An input element: (input name, position in a tuple of operands, index in the array).
Element = tuple[str, int, tuple[int, ...]]


def example_of(spec: OpSpec, name: str) -> Example:
    for ex in spec.examples:
        if ex.name == name:
            return ex
    raise KeyError(f"{spec.name} has no golden example {name!r} (its examples: {[e.name for e in spec.examples]})")


def _evaluate(spec: OpSpec, inputs: dict[str, Any], attrs: dict[str, Any]) -> np.ndarray:
    computation, args = build_case(spec, inputs, attrs)
    return np.asarray(get_backend("reference").execute(computation, args)[0])


def _arrays(value: Any) -> list[np.ndarray]:
    return [np.asarray(v) for v in value] if isinstance(value, (tuple, list)) else [np.asarray(value)]


def _raised(inputs: dict[str, Any], name: str, position: int, index: tuple[int, ...]) -> dict[str, Any]:
    arrays = _arrays(inputs[name])
    changed = arrays[position].copy()
    changed[index] = changed[index] + RAISE
    arrays[position] = changed
    return {**inputs, name: tuple(arrays) if isinstance(inputs[name], (tuple, list)) else changed}


def reads(spec: OpSpec, example: Example, data: Sequence[str]) -> dict[tuple[int, ...], set[Element]]:
    """Result index -> the data-input elements it reads (found by raising each one in turn)."""
    base = _evaluate(spec, example.inputs, example.attrs)
    found: dict[tuple[int, ...], set[Element]] = {index: set() for index in np.ndindex(base.shape)}
    for name in data:
        for position, array in enumerate(_arrays(example.inputs[name])):
            for index in np.ndindex(array.shape):
                changed = _evaluate(spec, _raised(example.inputs, name, position, index), example.attrs)
                for out in zip(*np.nonzero(changed != base)):
                    found[tuple(int(i) for i in out)].add((name, position, index))
    return found


def _cell_text(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "T" if value else "F"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value)


def _as_grids(array: np.ndarray) -> list[np.ndarray]:
    """The 2-D grids an array is drawn as: leading dimensions of size 1 dropped, a rank-3 array as a row of
    grids."""
    while array.ndim > 2 and array.shape[0] == 1:
        array = array[0]
    if array.ndim <= 2:
        return [array.reshape((1,) * (2 - array.ndim) + array.shape)]
    return [array[k] for k in range(array.shape[0])]


def _index_grids(shape: tuple[int, ...]) -> list[np.ndarray]:
    """``_as_grids`` of an array holding each element's index (to colour the cells)."""
    indices = np.empty(shape, dtype=object)
    for index in np.ndindex(shape):
        indices[index] = index
    return _as_grids(indices)


class _Svg:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.width = 0
        self.height = 0

    def text(self, x: float, y: float, text: str, size: int = 11, anchor: str = "middle", weight: str = "") -> None:
        bold = ' font-weight="bold"' if weight else ""
        self.parts.append(f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}"{bold}>'
                          f"{escape(text)}</text>")

    def panel(self, x: int, title: str, values: np.ndarray, fills: np.ndarray) -> int:
        """A titled panel of grids at ``x``; returns its width."""
        self.text(x, 14, title, anchor="start", weight="bold")
        gx, width = x, 0
        for grid, grid_fills in zip(_as_grids(values), _as_grids(fills)):
            rows, cols = grid.shape
            for r in range(rows):
                for c in range(cols):
                    cx, cy = gx + c * CELL_W, LABEL_H + r * CELL_H
                    self.parts.append(f'<rect x="{cx}" y="{cy}" width="{CELL_W}" height="{CELL_H}" '
                                      f'fill="{grid_fills[r, c]}" stroke="#555555"/>')
                    self.text(cx + CELL_W / 2, cy + CELL_H / 2 + 4, _cell_text(grid[r, c]))
            self.height = max(self.height, LABEL_H + rows * CELL_H + 8)
            width = gx - x + cols * CELL_W
            gx += cols * CELL_W + 8
        self.width = max(self.width, x + max(width, 7 * len(title)))
        return max(width, 7 * len(title))

    def render(self, caption: str) -> str:
        height = self.height + 18
        self.text(0, height - 4, caption, size=10, anchor="start")
        self.width = max(self.width, 7 * len(caption))
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height}" '
                f'viewBox="0 0 {self.width} {height}" font-family="monospace">\n'
                + "\n".join(self.parts) + "\n</svg>\n")


def figure_svg(spec: OpSpec) -> str:
    """The op's figure (its FIGURES entry drawn from the golden example), as SVG text."""
    figure = FIGURES[spec.name]
    example = example_of(spec, figure.example)
    read = reads(spec, example, figure.data)
    fed: dict[Element, list[tuple[int, ...]]] = {}
    for out in sorted(read):
        for element in sorted(read[out]):
            fed.setdefault(element, []).append(out)
    # A result element that reads one input element (Pad, Gather) takes that element's colour, so the copies of
    # one element share it; where result elements combine several (a window), each has its own colour and an
    # input element read by several result elements is drawn in the first one's.
    by_input = all(len(elements) <= 1 for elements in read.values())
    colours: dict[tuple[int, ...], str] = {}
    for key in (sorted(fed) if by_input else sorted(out for out in read if read[out])):
        colour = PALETTE[len(set(colours.values())) % len(PALETTE)]
        for out in (fed[key] if by_input else [key]):
            colours[out] = colour
    svg, x = _Svg(), 0
    for name, value in example.inputs.items():
        for position, array in enumerate(_arrays(value)):
            fills = np.full(array.shape, WHITE, dtype=object)
            if name in figure.data:
                for index in np.ndindex(array.shape):
                    outs = fed.get((name, position, index))
                    fills[index] = colours[outs[0]] if outs else WHITE
            label = f"{name}[{position}]" if isinstance(value, (tuple, list)) and len(value) > 1 else name
            x += svg.panel(x, f"{label} {shape_from_pyval(array)}", array, fills) + GAP
    result = np.asarray(example.expected)
    fills = np.full(result.shape, UNREAD, dtype=object)
    for index in np.ndindex(result.shape):
        fills[index] = colours.get(index, UNREAD)
    svg.text(x - GAP / 2, LABEL_H + CELL_H / 2 + 4, "→", size=16)
    svg.panel(x + 8, f"{spec.name}(...) {shape_from_pyval(result)}", result, fills)
    return svg.render(f"{spec.name}: golden example {example.name}")


def figure_markdown(spec: OpSpec, folder: str = "figures") -> str:
    """The page's figure section (empty for an op without a figure)."""
    figure = FIGURES.get(spec.name)
    if figure is None:
        return ""
    data = ", ".join(f"`{name}`" for name in figure.data)
    return (f"## Figure\n\n![{spec.name}, golden example {figure.example}]({folder}/{spec.name}.svg)\n\n"
            f"Drawn from the golden example `{figure.example}` (below) as the reference evaluates it: a result "
            f"element and the elements of {data} it reads share a colour; a grey result element reads none of them "
            f"(it is padding or an initial value). The reference found what each element reads by evaluating the "
            f"example again with that input element raised by {RAISE}.\n")


def write_figures(out: Path, all_specs: dict[str, OpSpec]) -> list[Path]:
    """Every figure as ``out/<op>.svg``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in FIGURES:
        path = out / f"{name}.svg"
        path.write_text(figure_svg(all_specs[name]))
        written.append(path)
    return written
