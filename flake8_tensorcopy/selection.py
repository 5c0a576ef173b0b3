"""Which rules run: code prefixes in layers (the configuration file, then the command line).

Inside one layer flake8's rule decides between ``select`` and ``ignore``: the longer
matching prefix wins, and ``ignore`` wins a tie. Across layers ruff's rule applies: a
layer that sets ``select`` starts afresh (what earlier layers selected or ignored no
longer counts); a layer without it adds its ``extend-select`` and removes its ``ignore``
from what the earlier layers chose. A rule off by default is selected only by its full
code, never by a prefix such as ``TCP``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from flake8 import defaults

from .rule import Rule
from .rules import ALL_RULES

_VALID_PREFIX = re.compile(defaults.VALID_CODE_PREFIX.pattern)


@dataclass(frozen=True)
class Layer:
    select: tuple[str, ...] | None = None  # None: this layer does not set select
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def parse_codes(values: Iterable[str]) -> tuple[str, ...]:
    """Code prefixes from comma-separated ``values``, upper-cased; ValueError names a bad one."""
    codes = []
    for value in values:
        for code in value.split(","):
            code = code.strip().upper()
            if not code:
                continue
            if not _VALID_PREFIX.match(code):
                raise ValueError(f"{code!r} is not a code prefix (like TCP, TCP0 or TCP001)")
            codes.append(code)
    return tuple(codes)


def resolve(layers: Sequence[Layer]) -> tuple[type[Rule], ...]:
    """The rules chosen by ``layers`` (the first is applied first), in code order."""
    enabled = {rule.code for rule in ALL_RULES if rule.enabled_by_default}
    for layer in layers:
        verdicts = {rule.code: _verdict(rule, layer) for rule in ALL_RULES}
        chosen = {code for code, verdict in verdicts.items() if verdict is True}
        if layer.select is not None:
            enabled = chosen
        else:
            enabled = (enabled | chosen) - {code for code, verdict in verdicts.items() if verdict is False}
    return tuple(rule for rule in ALL_RULES if rule.code in enabled)


def _verdict(rule: type[Rule], layer: Layer) -> bool | None:
    """True: ``layer`` selects ``rule``; False: it ignores it; None: it does not name it."""
    chosen = (*(layer.select or ()), *layer.extend_select)
    selected = max((len(p) for p in chosen if rule.code.startswith(p)), default=-1)
    if not rule.enabled_by_default and rule.code not in chosen:
        selected = -1
    ignored = max((len(p) for p in layer.ignore if rule.code.startswith(p)), default=-1)
    if selected < 0 and ignored < 0:
        return None
    return selected > ignored


def matches_a_rule(prefix: str) -> bool:
    return any(rule.code.startswith(prefix) for rule in ALL_RULES)
