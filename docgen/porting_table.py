"""Which names of the former ``xla_client`` surface ``backend`` provides: the porting table.

``python -m docgen.porting_table --markdown`` prints the table (every name of
:mod:`docgen.xla_client_names`, present here or missing with the open work that adds it);
``--write-readme`` puts it into README.md between its markers. An op counts as present when every
xla_client overload is accepted as written: its arguments in order (so positional calls work),
with their names (so keyword calls work), the optional ones optional here too.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
from pathlib import Path

import backend
from backend import ops
from docgen import xla_client_names

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN, END = "<!-- xla_client-surface:begin -->", "<!-- xla_client-surface:end -->"


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    kind: str        # op | enum | value type | helper | method
    detail: str      # the arguments, members or fields
    status: str      # "present", or "missing: <reason>" / what differs

    @property
    def present(self) -> bool:
        return self.status == "present"


def _parse_arguments(text: str) -> tuple[tuple[str, bool], ...]:
    """``"a, b=1"`` -> ``(("a", False), ("b", True))`` (name, optional)."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if part:
            name, _, default = part.partition("=")
            out.append((name.strip(), bool(default)))
    return tuple(out)


def _accepts(form: tuple[tuple[str, bool], ...], wanted: tuple[tuple[str, bool], ...]) -> bool:
    """Whether a call form takes xla_client's arguments in order and by name, optional where they are."""
    if len(form) < len(wanted):
        return False
    for (name, required), (want, optional) in zip(form, wanted):
        if name != want or (optional and required):
            return False
    return all(not required for _, required in form[len(wanted):])


def _open_reason(name: str, table: dict[str, tuple[str, ...]]) -> str:
    for reason, names in table.items():
        if name in names:
            return f"missing: {reason}"
    return "missing: no open work names it"


def _op_row(name: str, overloads: tuple[str, ...]) -> Row:
    detail = " / ".join(f"({o})" for o in overloads)
    function = getattr(ops, name, None)
    if function is None:
        return Row(name, "op", detail, _open_reason(name, xla_client_names.OPEN_WORK))
    forms = function.call_forms
    differ = [o for o in overloads if not any(_accepts(f, _parse_arguments(o)) for f in forms)]
    status = "present" if not differ else "call form differs: " + " / ".join(f"({o})" for o in differ)
    return Row(name, "op", detail, status)


def _enum_row(name: str, members: tuple[str, ...]) -> Row:
    """An enum of ``xla_client`` (and of ``xla_client.ops``, for :data:`~docgen.xla_client_names.OPS_ENUMS`): here
    as ``backend.<name>`` and ``backend.ops.<name>``, with every member."""
    value = getattr(backend, name, None)
    missing = [m for m in members if value is None or not hasattr(value, m)]
    ok = isinstance(value, type) and issubclass(value, enum.Enum) and not missing
    if name in xla_client_names.OPS_ENUMS and getattr(ops, name, None) is not value:
        return Row(f"ops.{name}", "enum", ", ".join(members), "missing: not an attribute of backend.ops")
    label = f"ops.{name}" if name in xla_client_names.OPS_ENUMS else name
    return Row(label, "enum", ", ".join(members), "present" if ok else f"missing members: {', '.join(missing)}")


def _value_type_row(name: str, fields: tuple[str, ...]) -> Row:
    cls = getattr(backend, name, None)
    try:
        instance = cls() if cls is not None else None
    except TypeError:
        instance = None
    problems = []
    for field in fields:
        attr = field.rstrip("[]")
        if instance is None or not hasattr(instance, attr):
            problems.append(attr)
        elif field.endswith("[]") and not isinstance(getattr(instance, attr), list):
            problems.append(f"{attr} (not a list)")
    status = "present" if instance is not None and not problems else \
        "missing" + (": " + ", ".join(problems) if instance is not None else ": not default-constructible")
    return Row(name, "value type", ", ".join(fields), status)


def _method_owner(cls: str) -> object:
    if cls == "XlaBuilder":
        return backend.XlaBuilder("surface")
    if cls in ("XlaComputation", "LoadedExecutable"):
        b = backend.XlaBuilder("surface")
        ops.Iota(b, backend.PrimitiveType.S32, 1)
        computation = b.build()
        return computation if cls == "XlaComputation" else backend.make_cpu_client("reference").compile(computation)
    if cls == "Client":
        return backend.make_cpu_client("reference")
    if cls == "Device":
        return backend.make_cpu_client("reference").devices()[0]
    return getattr(backend, cls)


def rows() -> list[Row]:
    """The whole table: ops, enums, value types, helpers, methods."""
    out = [_op_row(n, o) for n, o in sorted(xla_client_names.OPS.items(), key=lambda kv: kv[0].lower())]
    out += [_enum_row(n, m) for n, m in xla_client_names.ENUMS.items()]
    out += [_value_type_row(n, f) for n, f in xla_client_names.VALUE_TYPES.items()]
    out += [Row(n, "helper", "", "present" if hasattr(backend, n) else "missing") for n in xla_client_names.HELPERS]
    for cls, methods in xla_client_names.METHODS.items():
        owner = _method_owner(cls)
        for m in methods:
            name = f"{cls}.{m}"
            status = "present" if callable(getattr(owner, m, None)) else \
                _open_reason(name, xla_client_names.OPEN_METHODS)
            out.append(Row(name, "method", "", status))
    return out


def markdown(table: list[Row] | None = None) -> str:
    """The porting table as Markdown, with a count line."""
    table = rows() if table is None else table
    present = sum(r.present for r in table)
    lines = [f"{present} of {len(table)} names present; the others are missing with the open work that adds them.",
             "", "| xla_client name | kind | arguments / members / fields | status here |", "|---|---|---|---|"]
    for r in table:
        detail = r.detail.replace("|", "\\|")
        lines.append(f"| `{r.name}` | {r.kind} | {detail} | {r.status} |")
    return "\n".join(lines) + "\n"


def readme_table(text: str) -> str:
    """The table currently between the README's markers."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip("\n") + "\n"


def write_readme(path: Path = README) -> None:
    text = path.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    path.write_text(text[:start] + "\n" + markdown() + text[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docgen.porting_table", description=__doc__)
    parser.add_argument("--markdown", action="store_true", help="print the porting table")
    parser.add_argument("--write-readme", action="store_true", help="rewrite the table in README.md")
    args = parser.parse_args(argv)
    if args.write_readme:
        write_readme()
    else:
        print(markdown(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
