"""One taxonomy of families: a spec's ``family`` names the module that holds the op in every layer, and each family
has one category (docs/ARCHITECTURE.md, "One taxonomy of families")."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import specs
from backend import completeness
from backend.errors import SpecError
from backend.jax_backend import LIMITATIONS, LOWERINGS
from backend.pallas_backend import PALLAS_LOWERINGS
from backend.reference import EVALUATORS, IMPLEMENTATION_DEFINED
from backend.rules import SHAPE_RULES
from specs import loader
from specs.loader import CATEGORIES, FAMILIES, FAMILY_CATEGORIES, OpSpec

ROOT = Path(__file__).resolve().parent.parent


def misplaced(spec: OpSpec) -> list[str]:
    """The layers whose function for ``spec`` is not defined in the module its family names (by ``fn.__module__``)."""
    family = spec.family
    places = [
        ("shape rule", SHAPE_RULES.get(spec.shape_rule), {f"backend.rules.{family}", "backend.rules.elementwise"}),
        ("reference evaluator", EVALUATORS.get(spec.name), {f"backend.reference.{family}"}),
        ("implementation-defined", IMPLEMENTATION_DEFINED.get(spec.name), {f"backend.reference.{family}"}),
        ("jax lowering", LOWERINGS.get(spec.name), {f"backend.jax_backend.{family}"}),
        ("jax limitation", LIMITATIONS.get(spec.name), {f"backend.jax_backend.{family}"}),
        ("pallas lowering", PALLAS_LOWERINGS.get(spec.name), {f"backend.pallas_backend.{family}"}),
    ]
    return [what for what, fn, modules in places if fn is not None and fn.__module__ not in modules]


def test_every_op_lives_in_the_modules_its_family_names() -> None:
    wrong = {name: misplaced(spec) for name, spec in specs.load_all().items() if misplaced(spec)}
    assert wrong == {}
    assert all(completeness.family_problems(spec) == [] for spec in specs.load_all().values())


def test_the_family_is_the_reference_evaluators_module() -> None:
    """The rule the specs' families were set by: the module of the reference evaluator, else of the jax lowering,
    else of the shape rule (a non-executable op)."""
    for name, spec in specs.load_all().items():
        fn = EVALUATORS.get(name) or LOWERINGS.get(name) or SHAPE_RULES.get(spec.shape_rule)
        assert fn.__module__.rsplit(".", 1)[1] == spec.family, name
        assert spec.executable == (EVALUATORS.get(name) is not None), name


def test_a_wrong_family_is_caught_in_every_layer() -> None:
    scatter = specs.get("Scatter")  # a shape rule, evaluator, outcome function, lowering, limitation and kernel
    assert scatter.family == "indexing" and misplaced(scatter) == []
    wrong = dataclasses.replace(scatter, family="slicing")
    assert misplaced(wrong) == ["shape rule", "reference evaluator", "implementation-defined", "jax lowering",
                                "jax limitation", "pallas lowering"]
    problems = completeness.family_problems(wrong)
    assert len(problems) == 6 and all("family 'slicing'" in p for p in problems)
    for what in ("shape rule", "reference evaluator", "@implementation_defined function", "jax lowering",
                 "jax @limitation", "Pallas lowering"):
        assert any(p.startswith(f"the {what} of Scatter (backend.") for p in problems), what
    with pytest.raises(SpecError, match=r"scatter.yaml: family: the shape rule of Scatter"):
        completeness.check_spec(wrong)
    # a shared element-wise shape rule is allowed to any family; the op's own functions are not
    add = dataclasses.replace(specs.get("Add"), family="comparison")
    assert misplaced(add) == ["reference evaluator", "implementation-defined", "jax lowering"]
    assert len(completeness.family_problems(add)) == 3


def test_completeness_refuses_a_spec_file_with_a_wrong_family(tmp_path: Path) -> None:
    text = (loader.OPS_DIR / "cos.yaml").read_text()
    assert "\nfamily: unary\n" in text
    path = tmp_path / "cos.yaml"
    path.write_text(text.replace("\nfamily: unary\n", "\nfamily: math_functions\n"))
    assert loader.load_file(path).family == "math_functions"  # a known family: the loader alone accepts it
    with pytest.raises(SpecError, match=r"cos.yaml: family: the shape rule of Cos \(backend.rules.unary.*"
                                        r"not in backend.rules.math_functions or backend.rules.elementwise"):
        completeness.load_checked(path)


def test_the_loader_refuses_an_unknown_family(tmp_path: Path) -> None:
    path = tmp_path / "cos.yaml"
    text = (loader.OPS_DIR / "cos.yaml").read_text()
    path.write_text(text.replace("\nfamily: unary\n", "\nfamily: elementwise_unary\n"))
    with pytest.raises(SpecError, match=r"cos.yaml:\d+: family: unknown family 'elementwise_unary' \(allowed: unary, "):
        loader.load_file(path)


def test_the_families_are_the_layers_modules() -> None:
    used = {spec.family for spec in specs.load_all().values()}
    assert set(FAMILIES) == used  # every family holds an op
    assert "elementwise" not in FAMILIES  # the shared element-wise shape rules: named by shape_rule, not a family
    for family in FAMILIES:
        for package in ("reference", "jax_backend"):
            assert (ROOT / "backend" / package / f"{family}.py").is_file(), (package, family)
    # every module that registers an op's function is a family module (or the shared element-wise rules)
    allowed = {f"backend.{package}.{family}" for package in ("rules", "reference", "jax_backend", "pallas_backend")
               for family in FAMILIES} | {"backend.rules.elementwise"}
    for registry in (SHAPE_RULES, EVALUATORS, IMPLEMENTATION_DEFINED, LOWERINGS, LIMITATIONS, PALLAS_LOWERINGS):
        for name in registry.names():
            assert registry.get(name).__module__ in allowed, (registry.what, name)


def test_each_family_has_one_category() -> None:
    assert set(FAMILY_CATEGORIES) == set(FAMILIES) and set(FAMILY_CATEGORIES.values()) == set(CATEGORIES)
    assert CATEGORIES == ("element-wise", "creation", "data movement", "reduction", "higher-order", "linear algebra",
                          "control flow and side effects", "collectives", "random", "internal")
    for category in CATEGORIES:
        assert all(FAMILY_CATEGORIES[f] == category for f in loader.families_of(category))
    assert sum(len(loader.families_of(c)) for c in CATEGORIES) == len(FAMILIES)
    with pytest.raises(ValueError, match="unknown category"):
        loader.families_of("elementwise")
    assert loader.families_of(loader.ELEMENTWISE) == ("unary", "binary", "comparison", "conversion",
                                                       "math_functions", "special_functions")
    assert loader.families_of(loader.COLLECTIVES) == ("collectives", "collective_exchange", "point_to_point")
    for spec in specs.load_all().values():
        assert spec.category == FAMILY_CATEGORIES[spec.family], spec.name
    assert specs.get("Add").category == "element-wise" and specs.get("AllReduce").category == "collectives"
    assert specs.get("Sort").category == "higher-order" and specs.get("Conv").category == "linear algebra"


def test_the_shared_elementwise_rules_serve_only_elementwise_ops() -> None:
    for spec in specs.load_all().values():
        if SHAPE_RULES.get(spec.shape_rule).__module__ == "backend.rules.elementwise":
            assert spec.category == loader.ELEMENTWISE, spec.name


def test_grouping_by_category_keeps_the_navigation_order() -> None:
    all_specs = specs.load_all()
    grouped = loader.by_category(all_specs)
    assert tuple(grouped) == CATEGORIES
    assert sorted(s.name for ops in grouped.values() for s in ops) == sorted(all_specs)
    for category, ops in grouped.items():
        assert [s.name for s in ops] == sorted(s.name for s in ops)
        assert all(s.category == category for s in ops)
    assert list(loader.by_category([all_specs["Add"], all_specs["Abs"]])) == ["element-wise"]


def test_the_family_test_files_are_named_after_families() -> None:
    """tests/families/ holds one file per family, named as the family module (tests/README.md)."""
    from pathlib import Path

    folder = Path(__file__).parent / "families"
    names = {p.stem.removeprefix("test_") for p in folder.glob("test_*.py")}
    assert names and names <= set(FAMILIES), sorted(names - set(FAMILIES))
    assert sorted(p.name for p in folder.glob("*.py") if not p.name.startswith("test_")) == ["__init__.py"]
