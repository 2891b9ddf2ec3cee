"""Generate one Markdown page per operation from its spec, plus an index.

    python -m docgen.pages --out docs/ops
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from backend.hlo import etypes
from backend.hlo.shape import Shape, shape_from_pyval
from docgen import figures, upstream
from specs.loader import OpSpec, by_category, load_all, parse_literal


def _literal_text(value: Any) -> str:
    from specs.loader import PerDevice

    if isinstance(value, PerDevice):
        return "per device [" + "; ".join(f"{d}: {_literal_text(v)}" for d, v in enumerate(value)) + "]"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_literal_text(v) for v in value) + ")"
    if isinstance(value, Shape):
        return str(value)
    arr = np.asarray(value)
    return f"{shape_from_pyval(arr)} {np.array2string(_printable(arr), separator=', ', threshold=64)}"


def _printable(arr: np.ndarray) -> np.ndarray:
    """``arr`` in a NumPy type that prints its values as they are: ml_dtypes' sub-byte integers (s2, s4, u2, u4)
    as integers, its narrow floats (f8 kinds, f4e2m1fn) as floats; other types unchanged."""
    et = etypes.dtype_to_etype(arr.dtype)
    if etypes.is_int(et) and arr.dtype.kind not in "iu":
        return arr.astype(np.int64)
    if etypes.is_float(et) and arr.dtype.itemsize < 2:
        return arr.astype(np.float64)
    return arr


def _attr_text(value: Any) -> str:
    """An example attribute: a literal where it is one (Constant's), else as written."""
    if isinstance(value, dict):
        try:
            return _literal_text(parse_literal(value))
        except ValueError:
            pass
    return repr(value)


def _types_text(types: Sequence[etypes.PrimitiveType]) -> str:
    return ", ".join(f"`{etypes.short_name(t)}`" for t in types)


def _form_arg_text(arg: Any) -> str:
    """One argument of a call form: ``name``, ``name -> spec_arg``, ``[name] -> spec_arg`` (one operand),
    ``builder`` (an extra XlaBuilder), ``name=default``."""
    text = arg.name if arg.builder or arg.to in (None, arg.name) else f"{arg.name} -> {arg.to}"
    if arg.single:
        text = f"{arg.name} -> [{arg.to}]"
    return text if arg.required else f"{text}={arg.default!r}"


def upstream_text(spec: OpSpec) -> str:
    """The line naming the section of XLA's operation-semantics page that the page paraphrases."""
    url = upstream.link(spec.name)
    if url is None:
        return f"*Upstream:* XLA's [operation semantics]({upstream.URL}) has no section for {spec.name}."
    return f"*Upstream:* [{upstream.SECTIONS[spec.name]}]({url}) in XLA's operation semantics."


def render_op(spec: OpSpec) -> str:
    lines = [f"# {spec.name}", "", spec.summary, "",
             f"*Family:* `{spec.family}` · *category:* {spec.category} · *executable:* "
             + ("yes" if spec.executable else "**no**"), "", upstream_text(spec), ""]
    if not spec.executable:
        lines += [f"**Not executable:** {spec.not_executable}", ""]
    if spec.semantics:
        lines += ["## Semantics", "", spec.semantics, ""]
    if spec.name in figures.FIGURES:
        lines += [figures.figure_markdown(spec)]
    lines += ["## Signatures", ""] + [f"- `{s}`" for s in spec.signatures] + [""]
    if spec.forms:
        lines += ["A call is told apart by its arguments (their number, names and kinds); the forms take:", ""]
        lines += [f"- {form}: {', '.join(f'`{n}`' for n in names)}" for form, names in spec.forms.items()] + [""]
    if spec.call_forms:
        lines += ["## Other call forms (xla_client's)", ""]
        lines += [f"- `{form.name or spec.name}({', '.join(_form_arg_text(a) for a in form.args)})`"
                  for form in spec.call_forms] + [""]
    lines += ["## Arguments", "", "| name | kind | type | default | description |", "|---|---|---|---|---|"]
    for a in spec.args:
        typ = a.type or (f"array of `{a.element}{'_i' if a.per_operand else ''}`" if a.element else "")
        default = "" if a.required else f"`{a.default!r}`"
        lines.append(f"| `{a.name}` | {a.kind} | {typ} | {default} | {a.doc} |")
    lines.append("")
    if spec.element_types:
        lines += ["## Element types", ""]
        lines += [f"- `{var}`: {_types_text(types)}" for var, types in spec.element_types.items()]
        if spec.result:
            lines.append(f"- result: `{spec.result.get('element', '')}`")
        lines.append("")
    lines += ["## Constraints", ""] + [f"- **{cid}**: {text}" for cid, text in spec.constraints.items()] + [""]
    if spec.implementation_defined:
        lines += ["## Implementation-defined behaviour", ""]
        for k, e in spec.implementation_defined.items():
            lines.append(f"- **{k}**: {e.doc} Allowed outcomes:")
            for name, text in e.outcomes.items():
                who = [w for w, o in (("reference", e.reference), ("XLA", e.xla),
                                      ("XLA's constant folder", e.xla_constant_folded)) if o == name]
                lines.append(f"  - `{name}`" + (f" ({', '.join(who)})" if who else "") + f": {text}")
        lines.append("")
    lines += ["## Examples", ""]
    for ex in spec.examples:
        lines.append(f"### {ex.name}" + (f" (implementation-defined: {', '.join(ex.implementation_defined)})"
                                         if ex.implementation_defined else ""))
        if ex.doc:
            lines += ["", ex.doc]
        lines += ["", "```"]
        if ex.devices is not None:
            lines.append(f"# on {ex.devices[0]} replicas x {ex.devices[1]} partitions (device d = replica * "
                         f"{ex.devices[1]} + partition)")
        lines += [f"{k} = {_literal_text(v)}" for k, v in ex.inputs.items()]
        lines += [f"{k} = {_attr_text(v)}" for k, v in ex.attrs.items()]
        lines += [f"{spec.name}(...) = {_literal_text(ex.expected)}", "```", ""]
    lines += ["## Errors", "", "| violates | inputs | attributes |", "|---|---|---|"]
    for er in spec.errors:
        inputs = ", ".join(f"{k}: {_literal_text(v)}" for k, v in er.inputs.items())
        attrs = ", ".join(f"{k}={v!r}" for k, v in er.attrs.items())
        if er.devices is not None:
            attrs += f" (execute on {er.devices[0]} x {er.devices[1]} devices)"
        lines.append(f"| {er.violates} | {inputs} | {attrs} |")
    lines += ["", "## Tolerance", ""]
    for key, bound in spec.tolerance.by_key.items():
        text = "exact" if bound is None else f"rtol={bound.rtol:g}, atol={bound.atol:g}"
        if bound is not None and bound.log2_scale:
            text += f", each times max(1, log2 of the product of {bound.log2_scale})"
        lines.append(f"- `{key}`: " + text)
    lines += ["", f"*Generated from `specs/ops/{spec.path.name}`.*", ""]
    return "\n".join(lines)


def render_index(all_specs: dict[str, OpSpec]) -> str:
    runnable = sum(s.executable for s in all_specs.values())
    lines = ["# Operations", "", f"{len(all_specs)} operations, generated from `specs/ops/`; {runnable} executable "
             "(the others have a spec, a shape rule and this page only: their pages say why).", ""]
    for category, ops in by_category(all_specs).items():
        lines += [f"## {category}", "", "| op | executable | family | summary |", "|---|---|---|---|"]
        lines += [f"| [{s.name}]({s.name}.md) | {'yes' if s.executable else '**no**'} | `{s.family}` | {s.summary} |"
                  for s in ops]
        lines.append("")
    return "\n".join(lines)


def write_docs(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    all_specs = load_all()
    written = []
    for spec in all_specs.values():
        path = out / f"{spec.name}.md"
        path.write_text(render_op(spec))
        written.append(path)
    index = out / "index.md"
    index.write_text(render_index(all_specs))
    return [index, *written, *figures.write_figures(out / "figures", all_specs)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docgen.pages", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/ops", help="output folder (default: docs/ops)")
    args = parser.parse_args(argv)
    written = write_docs(Path(args.out))
    pages = [p for p in written if p.suffix == ".md"]
    print(f"wrote {len(pages)} pages and {len(written) - len(pages)} figures to {args.out} (index: {written[0]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
