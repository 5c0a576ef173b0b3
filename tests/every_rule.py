"""How a test turns every rule on, opt-in ones included: most tests exercise the rules
themselves, not which of them a default run picks (tests/test_opt_in.py does that)."""

from __future__ import annotations

from flake8_tensorcopy.rules import ALL_RULES

OPT_IN = [rule.code for rule in ALL_RULES if not rule.enabled_by_default]
# `[tool.flake8-tensorcopy]` keys that add every opt-in rule (a table's other keys may follow).
TABLE_KEYS = "extend-select = [" + ", ".join(f'"{code}"' for code in OPT_IN) + "]\n"
TABLE = "[tool.flake8-tensorcopy]\n" + TABLE_KEYS
# Command-line arguments that add them, for flake8 and the command alike.
ARGS = ["--extend-select", ",".join(OPT_IN)]
