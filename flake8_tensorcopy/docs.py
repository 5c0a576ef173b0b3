"""Rule reference pages, rendered from the rule modules (their single source).

``python -m flake8_tensorcopy.docs`` rewrites ``rules/TCPnnn.md``; a test keeps the
committed pages in sync, and the CLI's ``--explain`` prints the same text.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .rule import Rule
from .rules import ALL_RULES


def render(rule: type[Rule]) -> str:
    docs = rule.docs
    default = "on by default" if rule.enabled_by_default else (
        "off by default: enable with `--enable-extensions " + rule.code + "`"
    )
    sections = [
        f"# {rule.code}: {rule.name}\n",
        f"Message: `{rule.code} {rule.message}`\n\nStatus: {default}.\n",
        f"## What it does\n\n{docs.what}\n",
        f"## Why is this bad?\n\n{docs.why}\n",
        f"## Example\n\n```python\n{docs.example}```\n",
        f"## Use instead\n\n```python\n{docs.use_instead}```\n",
    ]
    if docs.known_problems:
        sections.append(f"## Known problems\n\n{docs.known_problems}\n")
    sections.append(f"## Fix safety\n\n{docs.fix_safety}\n")
    sections.append(
        f"## Proof on real tensors\n\n`{docs.fixture}` shows the hazard and the fix on CPU (and CUDA "
        f"when present): `python {docs.fixture}`.\n"
    )
    return "\n".join(sections)


def page_path(root: Path, rule: type[Rule]) -> Path:
    return root / "rules" / f"{rule.code}.md"


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path.cwd()
    for rule in ALL_RULES:
        page_path(root, rule).write_text(render(rule), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
