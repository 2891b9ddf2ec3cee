"""Validated types of the command line's option values, for ``argparse`` (``type=``): each gives the value or an
``argparse.ArgumentTypeError`` naming what is wrong with the text given, so a bad value is a usage error, never a
traceback or a run that misbehaves."""

from __future__ import annotations

import argparse
import math

#: The longest time limit the command line takes (seconds; a day).
MAX_SECONDS = 86400.0


def positive_seconds(text: str) -> float:
    """A time limit in seconds: a finite number > 0 and at most :data:`MAX_SECONDS` (``--timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0 and at most {MAX_SECONDS:g}, got {text!r}")
    return value
