"""The spec-completeness check: every layer implements every spec.

It sits above every layer it checks (the spec layer below them cannot look up): for each spec, a registered shape
rule; for an executable op, a reference evaluator, a jax lowering and, where an implementation-defined entry allows
outcomes besides the reference's, an ``@implementation_defined`` function; for each ``call_forms`` entry naming an
adapter, that adapter. A gap is a :class:`~backend.errors.SpecError` naming the file, the key and where to add the
missing function.

``python -m backend.completeness`` checks every spec (the tests and ``conformance run`` do too).
"""

from __future__ import annotations

import sys
from pathlib import Path

import specs
from backend.errors import SpecError
from backend.jax_backend import LOWERINGS
from backend.reference import EVALUATORS, IMPLEMENTATION_DEFINED
from backend.rules import SHAPE_RULES
from backend.surface.call_forms import ADAPTERS
from specs.loader import OpSpec, load_file


def _fail(spec: OpSpec, where: str, message: str) -> SpecError:
    return SpecError(f"{spec.path.name}: {where}: {message}")


def check_spec(spec: OpSpec) -> None:
    """A SpecError for the first function or adapter ``spec`` needs that no layer registers."""
    for i, form in enumerate(spec.call_forms):
        if form.adapter is not None and form.adapter not in ADAPTERS:
            raise _fail(spec, f"call_forms[{i}].adapter", f"no adapter '{form.adapter}' (known: "
                        f"{', '.join(sorted(ADAPTERS))}; add @adapter('{form.adapter}') in backend/surface/call_forms.py)")
    if spec.shape_rule not in SHAPE_RULES:
        raise _fail(spec, "shape_rule", f"no shape rule registered as '{spec.shape_rule}' "
                    f"(add @shape_rule('{spec.shape_rule}') in backend/rules/)")
    if not spec.executable:
        return
    if spec.name not in EVALUATORS:
        raise _fail(spec, "op", f"no reference evaluator for {spec.name} (add @evaluator('{spec.name}') "
                    "in backend/reference/)")
    if spec.name not in LOWERINGS:
        raise _fail(spec, "op", f"no jax lowering for {spec.name} (add @lowering('{spec.name}') in backend/jax_backend/)")
    open_ids = [k for k, e in spec.implementation_defined.items() if e.alternatives]
    if open_ids and spec.name not in IMPLEMENTATION_DEFINED:
        raise _fail(spec, "implementation_defined", f"{', '.join(open_ids)} allow outcomes besides the reference's: "
                    f"register @implementation_defined('{spec.name}') in backend/reference/")


def load_checked(path: Path | str) -> OpSpec:
    """One spec file, loaded (:func:`specs.load_file`) and checked against every layer."""
    spec = load_file(path)
    check_spec(spec)
    return spec


def check_all() -> int:
    """Check every spec under specs/ops; the number checked."""
    every = specs.load_all()
    for spec in every.values():
        check_spec(spec)
    return len(every)


def main() -> int:
    try:
        count = check_all()
    except SpecError as e:
        print(f"incomplete: {e}", file=sys.stderr)
        return 1
    print(f"{count} specs: every one has its shape rule, evaluator, lowering and adapters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
