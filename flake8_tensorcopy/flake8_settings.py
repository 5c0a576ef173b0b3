"""What the flake8 plugin runs on each file: the ``[tool.flake8-tensorcopy]`` table, read
and checked as the command line and the language server read it, with flake8's own
options on top.

- The table's ``select``, ``extend-select``, ``ignore`` and ``per-file-ignores`` choose the
  rules, as they do for the command (its ``exclude`` keys do not: flake8 has its own).
- A rule named by its full code in flake8's ``--select`` or ``--extend-select`` (command
  line or flake8 config) is turned on over the table, as the command's ``--extend-select``
  turns it on: that is how an opt-in rule is enabled everywhere. flake8's
  ``--enable-extensions TCP006`` does the same for an opt-in rule (its own checker then
  finds the main one runs it, and does nothing). A prefix (``TC``,
  ``TCP``) chooses nothing here; flake8 filters what the plugin reports with it, and with
  its ignores, as for any plugin.
- A table that cannot be used stops flake8 with the command's message.
"""

from __future__ import annotations

import argparse
from typing import NamedTuple

from . import config, selection


class PluginSettings(NamedTuple):
    chosen: config.Settings  # the table and flake8's full codes
    extended: config.Settings  # the same with every opt-in rule extended in (--enable-extensions)

    def codes_for(self, path: str) -> tuple[str, ...]:
        """The codes the main checker runs on ``path``."""
        return self.chosen.codes_for(path)

    def runs_opt_in(self, code: str, path: str) -> bool:
        """Whether the checker of opt-in ``code``, which flake8 runs only when its extension
        is enabled, lints ``path``: not when the main checker already does, nor when the
        table's per-file ignores drop it."""
        return code not in self.chosen.codes_for(path) and code in self.extended.codes_for(path)


def load(options: argparse.Namespace) -> PluginSettings:
    display = getattr(options, "stdin_display_name", "stdin")
    paths = []  # where the table is looked for, as the command looks from the paths it is given
    for name in getattr(options, "filenames", None) or ["."]:
        if name != "-":
            paths.append(name)
        elif display != "stdin":
            paths.append(display)
    known = {code for code, _ in selection.CODES}
    enabled = getattr(options, "enable_extensions", None) or ()
    if isinstance(enabled, str):
        enabled = enabled.split(",")
    # An extension enabled by its code is run by the main checker with the others: one plan of
    # the file for every rule, not one per opt-in checker.
    given = (*(options.select or ()), *(getattr(options, "extend_select", None) or ()), *enabled)
    named = tuple(code.strip().upper() for code in given if code.strip().upper() in known)
    opt_in = tuple(code for code, enabled_by_default in selection.CODES if not enabled_by_default)
    isolated, paths = bool(getattr(options, "isolated", False)), paths or ["."]
    try:
        chosen = config.load(paths, isolated=isolated, overrides=config.Overrides(extend_select=named))
        extended = config.load(paths, isolated=isolated, overrides=config.Overrides(extend_select=(*named, *opt_in)))
    except config.ConfigError as error:
        raise SystemExit(f"flake8-tensorcopy: error: {error}") from None
    return PluginSettings(chosen, extended)
