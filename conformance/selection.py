"""Which cases a run covers: op names (case-insensitive, with suggestions for near misses), families, case-id
patterns, element types and shards (``--shard K/N``), and the validated option types of the command line."""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from backend.hlo.etypes import ARRAY_TYPES, dtype_to_etype, short_name
from backend.hlo.shape import Shape
from conformance.cases import ERROR, GENERATED, GOLDEN, PROGRAM, Case
from specs.loader import FAMILIES

KINDS = (GOLDEN, GENERATED, ERROR, PROGRAM)
#: The kinds whose cases come from the specs (one op each).
OP_KINDS = (GOLDEN, GENERATED, ERROR)
#: The element type names ``--etypes`` takes (``f32``, ``s4``, ``pred``...).
ETYPE_NAMES = tuple(short_name(et) for et in ARRAY_TYPES)


class SelectionError(ValueError):
    """A selection that names nothing, or names something that does not exist (the message says which)."""


# -- option types (argparse ``type=``): each rejects a bad value with a message naming it ------------------------
def _integer(text: str, minimum: int, too_small: str) -> int:
    """``text`` as an integer of at least ``minimum``; ``too_small`` says what a smaller one is."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{value} {too_small}")
    return value


def positive_int(text: str) -> int:
    return _integer(text, 1, "is not a positive integer (at least 1)")


def non_negative_int(text: str) -> int:
    return _integer(text, 0, "is negative")


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value


def comma_list(choices: Sequence[str], what: str) -> Any:
    """A type for a comma-separated list whose items must be among ``choices``."""

    def parse(text: str) -> list[str]:
        items = [t.strip() for t in text.split(",") if t.strip()]
        if not items:
            raise argparse.ArgumentTypeError(f"no {what} given")
        bad = [t for t in items if t not in choices]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(map(repr, bad))} "
                                             f"(choose from {', '.join(choices)})")
        return items

    return parse


def shard(text: str) -> tuple[int, int]:
    """``K/N``: the K-th of N shards, 1 <= K <= N."""
    k, slash, n = text.partition("/")
    try:
        if not slash:
            raise ValueError
        index, count = int(k), int(n)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not K/N (the K-th of N shards, e.g. 2/4)") from None
    if count < 1 or not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"'{text}': need 1 <= K <= N")
    return index, count


# -- ops and families ----------------------------------------------------------------------------------------------
def suggestions(name: str, known: Iterable[str], limit: int = 4) -> list[str]:
    """The known names closest to ``name`` (and the names that extend them: Dott -> Dot, DotGeneral)."""
    lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(name.lower(), list(lower), n=limit, cutoff=0.6)
    found = [lower[c] for c in close]
    found += sorted(k for c in close for lk, k in lower.items() if lk != c and lk.startswith(c))
    return list(dict.fromkeys(found))[:limit]


def resolve_ops(names: Iterable[str], known: Iterable[str]) -> list[str]:
    """The spec names ``names`` give (matched without regard to case); SelectionError for a name with no spec."""
    known = list(known)
    by_lower = {k.lower(): k for k in known}
    resolved, errors = [], []
    for name in names:
        if name in known or name.lower() in by_lower:
            resolved.append(name if name in known else by_lower[name.lower()])
            continue
        close = suggestions(name, known)
        errors.append(f"no spec for {name}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    if errors:
        raise SelectionError("; ".join(errors))
    return list(dict.fromkeys(resolved))


def chosen_ops(all_specs: Mapping[str, Any], ops: Sequence[str] = (), families: Sequence[str] = ()) -> list[str]:
    """The ops ``--ops`` and ``--families`` name (every op when neither does), in spec order."""
    names = resolve_ops(ops, all_specs) if ops else []
    if families:
        names += [n for n, s in all_specs.items() if s.family in families and n not in names]
    elif not ops:
        names = list(all_specs)
    order = {n: i for i, n in enumerate(all_specs)}
    return sorted(names, key=order.__getitem__)


# -- cases ---------------------------------------------------------------------------------------------------------
def id_matches(case_id: str, pattern: str) -> bool:
    """The id itself or a ``/``-separated prefix of it (``Igamma/generated/f16/f16[],f16[]``: generated ids hold
    brackets and commas), else a glob over the whole id or such a prefix, as the manifests match (``Pad/golden``)."""
    if case_id == pattern or case_id.startswith(pattern + "/"):
        return True
    return fnmatch.fnmatchcase(case_id, pattern) or fnmatch.fnmatchcase(case_id, pattern + "/*")


def case_patterns(text: str) -> list[str]:
    """``--cases``' comma-separated patterns. A case id holds commas of its own (``f16[],f16[]``, ``[2,3]``,
    ``lhs_contracting=1,rhs_contracting=0``), and every id starts with an op name (capitalised) or ``program/``: a
    comma followed by anything else continues the pattern before it, so an id pasted from a report selects its case."""
    patterns: list[str] = []
    for piece in text.split(","):
        start = piece.lstrip()
        if patterns and start and not (start[0].isupper() or start[0] in "*?[" or start.startswith(PROGRAM + "/")):
            patterns[-1] += "," + piece
        else:
            patterns.append(piece)
    return [p.strip() for p in patterns if p.strip()]


def case_etypes(case: Case) -> set[str]:
    """The element types of a case's operands (``f32``, ``s4``...)."""
    found = set()
    for value in case.inputs.values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, Shape):
                if v.is_array():
                    found.add(short_name(v.element_type()))
            elif isinstance(v, np.ndarray | np.generic):
                try:
                    found.add(short_name(dtype_to_etype(v.dtype)))
                except (KeyError, ValueError, TypeError):
                    continue
    return found


def in_shard(case_id: str, index: int, count: int) -> bool:
    """Whether the case is in shard ``index`` of ``count`` (1-based): a hash of its id, the same on every machine
    and whatever else the run selects."""
    return zlib.crc32(case_id.encode()) % count == index - 1


def keep(case: Case, kinds: Sequence[str], patterns: Sequence[str] = (), etypes: Sequence[str] = (),
         shard_of: tuple[int, int] | None = None) -> bool:
    return (case.kind in kinds
            and (not patterns or any(id_matches(case.id, p) for p in patterns))
            and (not etypes or bool(case_etypes(case) & set(etypes)))
            and (shard_of is None or in_shard(case.id, *shard_of)))


__all__ = ["ETYPE_NAMES", "FAMILIES", "KINDS", "OP_KINDS", "SelectionError", "case_etypes", "case_patterns", "chosen_ops", "comma_list",
           "id_matches", "in_shard", "keep", "non_negative_int", "positive_int", "positive_seconds", "resolve_ops",
           "shard", "suggestions"]
