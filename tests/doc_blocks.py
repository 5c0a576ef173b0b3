"""The fenced code blocks of the README and of the pages under docs/, as the tests read them.

A block is run by tests/test_commands.py unless the line just above it says why not:
`<!-- not run by tests/test_commands.py: REASON -->`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
NOT_RUN = re.compile(r"<!-- not run by tests/test_commands\.py: (?P<reason>[^>]+?) -->\s*$")
FENCE = re.compile(r"^(?P<indent> *)```(?P<language>\w*)\n(?P<body>.*?)^(?P=indent)```$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    body: str
    not_run: str | None  # the reason given above it, if any

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path, language: str | None = None) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[:match.start()].rstrip("\n ").rsplit("\n", 1)[-1]
        reason = NOT_RUN.search(before)
        indent = len(match["indent"])
        body = "".join(line[indent:] for line in match["body"].splitlines(keepends=True))
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match["language"], body,
                           reason["reason"] if reason else None))
    return [block for block in found if language is None or block.language == language]


def all_blocks(language: str | None = None) -> list[Block]:
    return [block for page in PAGES for block in blocks(page, language)]
