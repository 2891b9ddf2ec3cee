"""The registry of backends: ``get_backend(name)`` for the built-in ones (``reference``, ``jax``, ``pallas``),
third-party ones (the ``xla_semantics.backends`` entry-point group) and ``module:attribute``.

What a backend is (the :class:`~backend.runtime.protocol.Backend` protocol) is :mod:`backend.runtime.protocol`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib import metadata

from backend.runtime.protocol import Backend

ENTRY_POINT_GROUP = "xla_semantics.backends"


_BUILTIN: dict[str, Callable[[], Backend]] = {}
_INSTANCES: dict[str, Backend] = {}
_builtins_added = False


def register_backend(name: str, factory: Callable[[], Backend]) -> None:
    """Make ``get_backend(name)`` return ``factory()`` (created once)."""
    _builtin_factories()  # the built-ins first, so a registration before any get_backend keeps them
    _BUILTIN[name] = factory
    _INSTANCES.pop(name, None)


def _builtin_factories() -> None:
    global _builtins_added
    if _builtins_added:
        return

    def reference() -> Backend:
        from backend.reference.executor import ReferenceBackend
        return ReferenceBackend()

    def jax_backend() -> Backend:
        from backend.jax_backend.executor import JaxBackend
        return JaxBackend()

    def pallas() -> Backend:
        from backend.pallas_backend.executor import PallasBackend
        return PallasBackend()

    for name, factory in (("reference", reference), ("jax", jax_backend), ("pallas", pallas)):
        _BUILTIN.setdefault(name, factory)  # a user's registration of the same name wins
    _builtins_added = True


def available_backends() -> list[str]:
    _builtin_factories()
    names = set(_BUILTIN)
    names.update(ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP))
    return sorted(names)


def get_backend(name: str = "jax") -> Backend:
    """A backend by name (``reference``, ``jax``, ``pallas``, an entry point) or ``module:attribute``."""
    if name in _INSTANCES:
        return _INSTANCES[name]
    _builtin_factories()
    if name in _BUILTIN:
        backend = _BUILTIN[name]()
    elif ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            obj = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as e:
            raise ValueError(f"cannot load backend '{name}': {e}") from None
        backend = obj() if isinstance(obj, type) or (callable(obj) and not isinstance(obj, Backend)) else obj
    else:
        eps = [ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
        if not eps:
            raise ValueError(f"unknown backend '{name}' (known: {', '.join(available_backends())}; "
                             "or give module:attribute)")
        obj = eps[0].load()
        backend = obj() if isinstance(obj, type) or (callable(obj) and not isinstance(obj, Backend)) else obj
    if not isinstance(backend, Backend):
        raise ValueError(f"backend '{name}' does not implement the Backend interface (name, supports, execute)")
    _INSTANCES[name] = backend
    return backend
