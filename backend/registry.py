"""Registries of per-op functions, found by op name (never a hand-edited list).

Each layer (shape rules, reference evaluators, jax lowerings, case generators) keeps one
:class:`Registry`. Functions register with a decorator in the family module that holds them;
:func:`discover` imports every module of a package so that the decorators run.

A registry is generic in the type of its functions (``Registry[Callable[[OpContext], Shape]]`` for the shape
rules): a type checker checks each registered function against it, its first parameter (``ctx``) included.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Registry(Generic[F]):
    def __init__(self, what: str, package: str) -> None:
        self.what = what
        self.package = package
        self._table: dict[str, F] = {}
        self._discovered = False
        self._discovering = False
        # the reference runs devices in threads: one discovers, the others wait for the whole table
        self._lock = threading.RLock()

    def register(self, *names: str) -> Callable[[F], F]:
        def decorate(fn: F) -> F:
            for name in names:
                if name in self._table and self._table[name] is not fn:
                    raise RuntimeError(f"two {self.what}s registered for '{name}': "
                                       f"{self._table[name].__module__} and {fn.__module__}")
                self._table[name] = fn
            return fn
        return decorate

    def _ensure(self) -> None:
        if self._discovered:
            return
        with self._lock:
            if self._discovered or self._discovering:  # a module being imported may look the registry up
                return
            self._discovering = True
            try:
                discover(self.package)
                self._discovered = True
            finally:
                self._discovering = False

    def get(self, name: str) -> F | None:
        self._ensure()
        return self._table.get(name)

    def __contains__(self, name: str) -> bool:
        self._ensure()
        return name in self._table

    def names(self) -> list[str]:
        self._ensure()
        return sorted(self._table)


def discover(package: str) -> None:
    """Import every module of ``package`` (so their registration decorators run)."""
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__, package + "."):
        importlib.import_module(info.name)
