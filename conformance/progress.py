"""What ``python -m conformance run`` shows while it runs.

One line of marks per op, in op order, once all of the op's results are in (a log reads the same
whatever order the workers finish in). On a terminal, a status line under them says how many cases
are done, the time so far and the estimated time left; it is rewritten in place at most a few times
a second and removed at the end, so nothing of it lands in a file or a pipe.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from conformance.manifest import SKIPPED, XFAIL, XPASS
from conformance.runner import Result

MARKS = {"passed": ".", "failed": "F", "unsupported": "u", "impl-defined": "i", "crashed": "C", "timed out": "T",
         XFAIL: "x", XPASS: "X", SKIPPED: "s"}
#: Seconds between two redraws of the status line.
REDRAW_EVERY = 0.25


def duration_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class RunProgress:
    """Collects results as they come and prints the op lines and, on a terminal, the status line."""

    def __init__(self, names: list[str], quiet: bool = False, stream: TextIO | None = None,
                 status_line: bool | None = None) -> None:
        self.names = names
        self.quiet = quiet
        self.stream = stream or sys.stdout
        isatty = getattr(self.stream, "isatty", None)
        self.status_line = (bool(isatty and isatty()) if status_line is None else status_line) and not quiet
        self.expected: dict[str, int] = {}
        self.marks: dict[str, list[str]] = {name: [] for name in names}
        self.printed = 0
        self.done = 0
        self.started = time.monotonic()
        self._drawn = 0.0
        self._shown = False

    def expect(self, name: str, count: int) -> None:
        self.expected[name] = count
        self._flush()

    def add(self, result: Result) -> None:
        self.marks[result.case.op].append(MARKS.get(result.status, "?"))
        self.done += 1
        self._flush()

    def estimated_total(self) -> int:
        """The cases expected in all: the counts known so far, and their mean for each op still unknown."""
        known = sum(self.expected.values())
        unknown = len(self.names) - len(self.expected)
        return known + (round(unknown * known / len(self.expected)) if self.expected else 0)

    def status_text(self, now: float | None = None) -> str:
        elapsed = (time.monotonic() if now is None else now) - self.started
        total = max(self.estimated_total(), self.done)
        text = f"{self.done}/{total} cases ({100 * self.done // max(total, 1)}%), {duration_text(elapsed)}"
        if self.done:
            text += f", about {duration_text(elapsed / self.done * (total - self.done))} left"
        return text

    def finish(self) -> None:
        """Remove the status line."""
        self._clear()

    def _flush(self) -> None:
        printed = self.printed
        while self.printed < len(self.names):
            name = self.names[self.printed]
            if name not in self.expected or len(self.marks[name]) < self.expected[name]:
                break
            self.printed += 1
            if not self.quiet:
                self._clear()
                print(f"[{self.printed:>3}/{len(self.names)}] {name:<24} {''.join(self.marks[name])}",
                      file=self.stream, flush=True)
        now = time.monotonic()
        if self.status_line and (now - self._drawn >= REDRAW_EVERY or self.printed > printed):
            self._drawn = now
            self.stream.write("\r\x1b[K" + self.status_text(now))
            self.stream.flush()
            self._shown = True

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
