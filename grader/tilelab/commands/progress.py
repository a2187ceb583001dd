"""A progress bar for long work: rich's when it is installed and the output is a terminal,
one plain line per finished item otherwise (logs, CI)."""

from __future__ import annotations

import sys
import threading


class Progress:
    def __init__(self, total: int, description: str):
        self.total, self.done, self.description = total, 0, description
        self._lock = threading.Lock()
        self._rich = None
        if sys.stdout.isatty():
            try:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, \
                    TextColumn, TimeElapsedColumn
                self._rich = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                          TimeElapsedColumn(), TextColumn("{task.fields[current]}"))
            except ImportError:
                pass

    def __enter__(self):
        if self._rich:
            self._rich.start()
            self._task = self._rich.add_task(self.description, total=self.total, current="")
        return self

    def __exit__(self, *exc):
        if self._rich:
            self._rich.stop()

    def note(self, text: str) -> None:
        """What is happening now (shown beside the bar; not printed in plain mode)."""
        if self._rich:
            self._rich.update(self._task, current=text)

    def log(self, line: str) -> None:
        """A line printed now, above the bar (or plainly), without counting an item done."""
        with self._lock:
            if self._rich:
                self._rich.console.print(line)
            else:
                print(f"[{self.done}/{self.total}] {line}", flush=True)

    def advance(self, line: str) -> None:
        with self._lock:
            self.done += 1
            if self._rich:
                self._rich.advance(self._task)
                self._rich.console.print(line)
            else:
                print(f"[{self.done}/{self.total}] {line}", flush=True)
