"""A progress bar on a terminal: files done of the total, for runs long enough to need one."""

from __future__ import annotations

import time
from typing import TextIO

WIDTH = 30


class Progress:
    """Drawn on ``stream`` only when it is a terminal and ``enabled``; nothing is drawn
    before ``delay`` seconds (a short run stays silent), then at most every ``interval``
    seconds. :meth:`close` erases it, so the findings printed next start on a clean line."""

    def __init__(self, total: int, stream: TextIO, enabled: bool = True,
                 delay: float = 0.5, interval: float = 0.1) -> None:
        self.total = total
        self.done = 0
        self.stream = stream
        self.active = enabled and total > 1 and stream.isatty()
        self.interval = interval
        self.next_draw = time.monotonic() + delay
        self.drawn = False

    def advance(self) -> None:
        self.done += 1
        if self.active and time.monotonic() >= self.next_draw:
            filled = WIDTH * self.done // self.total
            self.stream.write(f"\r[{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} files")
            self.stream.flush()
            self.drawn = True
            self.next_draw = time.monotonic() + self.interval

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")  # back to the line's start, erase to its end
            self.stream.flush()
            self.drawn = False
