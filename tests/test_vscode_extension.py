"""The VS Code extension's manifest and its README (the marketplace page) agree with the
package: every rule, every setting with its default, every command. The extension itself
is tested by its unit tests (`npm test` in editors/vscode) and in a real VS Code
(tests/test_vscode.py)."""

import json
import re
from pathlib import Path

from flake8_tensorcopy import __version__
from flake8_tensorcopy.rules import ALL_RULES

EXTENSION = Path(__file__).resolve().parent.parent / "editors" / "vscode"
MANIFEST = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
README = (EXTENSION / "README.md").read_text(encoding="utf-8")


def test_rules_table_lists_every_rule():
    rows = re.findall(r"^\| (TCP\d{3}) \| ([\w-]+) \|", README, re.MULTILINE)
    assert rows == [(rule.code, rule.name) for rule in ALL_RULES]


def test_settings_table_lists_every_setting_with_its_default():
    rows = dict(re.findall(r"^\| `(flake8-tensorcopy\.[\w.]+)` \| `([^`]*)` \|", README, re.MULTILINE))
    properties = MANIFEST["contributes"]["configuration"]["properties"]
    assert {name: json.loads(default) for name, default in rows.items()} == {
        name: spec["default"] for name, spec in properties.items()}


def test_commands_table_lists_every_command():
    rows = re.findall(r"^\| (flake8-tensorcopy: [^|]+?) \|", README, re.MULTILINE)
    assert rows == [f"{command['category']}: {command['title']}" for command in MANIFEST["contributes"]["commands"]]


def test_the_extension_has_the_package_version():
    assert MANIFEST["version"] == __version__
