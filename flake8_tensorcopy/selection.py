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
from typing import NamedTuple

from flake8 import defaults

from ._triggers import RULE_TRIGGERS

_VALID_PREFIX = re.compile(defaults.VALID_CODE_PREFIX.pattern)
# Every rule's code and whether it is on by default, in code order: plain data, so that the
# flake8 plugin chooses its rules before anything imports LibCST.
CODES = tuple((spec.code, spec.enabled_by_default) for spec in RULE_TRIGGERS)


class Layer(NamedTuple):
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


def resolve(layers: Sequence[Layer]) -> tuple[str, ...]:
    """The codes of the rules chosen by ``layers`` (the first is applied first), in order."""
    enabled = {code for code, on in CODES if on}
    for layer in layers:
        verdicts = {code: _verdict(code, on, layer) for code, on in CODES}
        chosen = {code for code, verdict in verdicts.items() if verdict is True}
        if layer.select is not None:
            enabled = chosen
        else:
            enabled = (enabled | chosen) - {code for code, verdict in verdicts.items() if verdict is False}
    return tuple(code for code, _ in CODES if code in enabled)


def _verdict(code: str, enabled_by_default: bool, layer: Layer) -> bool | None:
    """True: ``layer`` selects the rule; False: it ignores it; None: it does not name it."""
    chosen = (*(layer.select or ()), *layer.extend_select)
    selected = max((len(p) for p in chosen if code.startswith(p)), default=-1)
    if not enabled_by_default and code not in chosen:
        selected = -1
    ignored = max((len(p) for p in layer.ignore if code.startswith(p)), default=-1)
    if selected < 0 and ignored < 0:
        return None
    return selected > ignored


def matches_a_rule(prefix: str) -> bool:
    return any(code.startswith(prefix) for code, _ in CODES)
