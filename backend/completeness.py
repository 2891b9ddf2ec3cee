"""The spec-completeness check: every layer implements every spec.

It sits above every layer it checks (the spec layer below them cannot look up): for each spec, a registered shape
rule; for an executable op, a reference evaluator, a jax lowering and, where an implementation-defined entry allows
outcomes besides the reference's, an ``@implementation_defined`` function; for each ``call_forms`` entry naming an
adapter, that adapter. And each registered function sits in the module the spec's ``family`` names (one taxonomy,
docs/ARCHITECTURE.md): the shape rule in ``backend.rules.<family>`` or the shared ``backend.rules.elementwise``; the
reference evaluator and ``@implementation_defined`` function in ``backend.reference.<family>``; the jax lowering and
``@limitation`` in ``backend.jax_backend.<family>``; a Pallas lowering in ``backend.pallas_backend.<family>``. A gap
or a misplaced function is a :class:`~backend.errors.SpecError` naming the file, the key and where the function
belongs.

``python -m backend.completeness`` checks every spec (the tests and ``conformance run`` do too).
"""

from __future__ import annotations

import sys
from pathlib import Path

import specs
from backend.errors import SpecError
from backend.jax_backend import LIMITATIONS, LOWERINGS
from backend.pallas_backend import PALLAS_LOWERINGS
from backend.reference import EVALUATORS, IMPLEMENTATION_DEFINED
from backend.registry import Registry
from backend.rules import SHAPE_RULES
from backend.surface.call_forms import ADAPTERS
from specs.loader import OpSpec, load_file


def _fail(spec: OpSpec, where: str, message: str) -> SpecError:
    return SpecError(f"{spec.path.name}: {where}: {message}")


#: The shape rules several families share (the element-wise ones, named by a spec's ``shape_rule``).
SHARED_RULES_MODULE = "backend.rules.elementwise"
#: What :func:`family_problems` checks: (what, registry, keyed by the op's shape rule rather than its name, package).
FAMILY_PLACES: tuple[tuple[str, Registry, bool, str], ...] = (
    ("shape rule", SHAPE_RULES, True, "backend.rules"),
    ("reference evaluator", EVALUATORS, False, "backend.reference"),
    ("@implementation_defined function", IMPLEMENTATION_DEFINED, False, "backend.reference"),
    ("jax lowering", LOWERINGS, False, "backend.jax_backend"),
    ("jax @limitation", LIMITATIONS, False, "backend.jax_backend"),
    ("Pallas lowering", PALLAS_LOWERINGS, False, "backend.pallas_backend"),
)


def family_problems(spec: OpSpec) -> list[str]:
    """One line for each function registered for ``spec`` that is not defined (``fn.__module__``) in the module its
    family names; empty when every one is."""
    problems = []
    for what, registry, by_rule, package in FAMILY_PLACES:
        fn = registry.get(spec.shape_rule if by_rule else spec.name)
        if fn is None:
            continue
        allowed = [f"{package}.{spec.family}"] + ([SHARED_RULES_MODULE] if by_rule else [])
        if fn.__module__ not in allowed:
            problems.append(f"the {what} of {spec.name} ({fn.__module__}.{fn.__name__}) is not in "
                            f"{' or '.join(allowed)} (family '{spec.family}'): move it there, or correct the family")
    return problems


def check_spec(spec: OpSpec) -> None:
    """A SpecError for the first function or adapter ``spec`` needs that no layer registers, or for the functions
    registered outside the modules its family names."""
    for i, form in enumerate(spec.call_forms):
        if form.adapter is not None and form.adapter not in ADAPTERS:
            raise _fail(spec, f"call_forms[{i}].adapter", f"no adapter '{form.adapter}' (known: "
                        f"{', '.join(sorted(ADAPTERS))}; add @adapter('{form.adapter}') in backend/surface/call_forms.py)")
    if spec.shape_rule not in SHAPE_RULES:
        raise _fail(spec, "shape_rule", f"no shape rule registered as '{spec.shape_rule}' "
                    f"(add @shape_rule('{spec.shape_rule}') in backend/rules/{spec.family}.py)")
    misplaced = family_problems(spec)
    if misplaced:
        raise _fail(spec, "family", "; ".join(misplaced))
    if not spec.executable:
        return
    if spec.name not in EVALUATORS:
        raise _fail(spec, "op", f"no reference evaluator for {spec.name} (add @evaluator('{spec.name}') "
                    f"in backend/reference/{spec.family}.py)")
    if spec.name not in LOWERINGS:
        raise _fail(spec, "op", f"no jax lowering for {spec.name} (add @lowering('{spec.name}') "
                    f"in backend/jax_backend/{spec.family}.py)")
    open_ids = [k for k, e in spec.implementation_defined.items() if e.alternatives]
    if open_ids and spec.name not in IMPLEMENTATION_DEFINED:
        raise _fail(spec, "implementation_defined", f"{', '.join(open_ids)} allow outcomes besides the reference's: "
                    f"register @implementation_defined('{spec.name}') in backend/reference/{spec.family}.py")


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
    print(f"{count} specs: every one has its shape rule, evaluator, lowering and adapters, each in its family's "
          "modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
