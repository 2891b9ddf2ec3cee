"""The token: an op-ordering value that carries no data.

At run time a token is an empty ``pred`` array (:data:`TOKEN`); a :class:`Token` (an ndarray subclass of the
same value) marks a token *input* where one must be told apart from a ``pred[0]`` array (a spec literal
``{"token[]": []}``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The run-time value of a token: an empty pred array.
TOKEN = np.zeros((0,), np.bool_)
TOKEN.flags.writeable = False


class Token(np.ndarray):
    """A token input (a spec literal ``{"token[]": []}``); its value is :data:`TOKEN`."""

    def __new__(cls) -> Token:
        return np.zeros((0,), np.bool_).view(cls)


def is_token(value: Any) -> bool:
    return isinstance(value, Token)
