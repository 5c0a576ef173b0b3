"""Each rule's inline examples: flagged ones at the expected place, clean ones clean.

The examples live on the rule (one source for tests and docs); shortcuts on and off
must agree on every one of them. Opt-in rules are tested like the others; a clean example
must be clean under every rule.
"""

import pytest

from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES


def _example_id(code: str, text: str, line: int | None = None) -> str:
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return f"{code}:{text.splitlines()[line - 1].strip() if line else lines[-1]}"


FLAGGED = [
    pytest.param(rule, example, id=_example_id(rule.code, example.code, example.expect[0][0]))
    for rule in ALL_RULES
    for example in rule.flagged
]
CLEAN = [pytest.param(rule, code, id=_example_id(rule.code, code)) for rule in ALL_RULES for code in rule.clean]


@pytest.mark.parametrize("shortcuts", [True, False], ids=["prefiltered", "whole-file"])
@pytest.mark.parametrize("rule, example", FLAGGED)
def test_flagged_example(rule, example, shortcuts):
    findings = lint_source(example.code, rules=[rule], shortcuts=shortcuts)
    assert [(f.line, f.col + 1, f.code) for f in findings] == [(line, col, rule.code) for line, col in example.expect]
    assert all(f.message.startswith(f"{rule.code} ") and "\n" not in f.message for f in findings)
    assert all(example.message in f.message for f in findings), [f.message for f in findings]


@pytest.mark.parametrize("rule, code", CLEAN)
def test_clean_example(rule, code):
    assert lint_source(code, rules=ALL_RULES, shortcuts=False) == []
    # The flake8 plugin's plan (no fixes) may parse statements alone: clean there too.
    assert lint_source(code, rules=ALL_RULES, fixes=False) == []


def test_codes_are_distinct_and_well_formed():
    codes = [rule.code for rule in ALL_RULES]
    assert len(set(codes)) == len(codes)
    assert codes == sorted(codes)
    assert all(code.startswith("TCP") and code[3:].isdigit() and len(code) == 6 for code in codes)
    assert len({rule.name for rule in ALL_RULES}) == len(codes)


def test_the_registry_names_each_rule_module_once_under_its_code():
    from pathlib import Path

    from flake8_tensorcopy import rules

    modules = sorted(path.stem for path in Path(rules.__file__).parent.glob("tcp*.py"))
    assert sorted(module for module, _ in rules.REGISTRY.values()) == modules
    for code in rules.CODES:
        assert rules.rule_class(code).code == code
    assert [rule.code for rule in ALL_RULES] == list(rules.CODES)
    with pytest.raises(KeyError):
        rules.rule_class("TCP999")


def test_every_rule_has_examples_both_ways():
    for rule in ALL_RULES:
        assert rule.flagged and rule.clean, rule.code


@pytest.mark.parametrize("write", ["sd[key].data.fill_(0.)", "sd[key].data += 1"])
def test_a_state_dict_written_into_is_a_handle_on_the_weights_not_a_snapshot(write):
    """Averaging learners by writing through the target's state_dict (FedEM's shape): the
    aliasing is the point. TCP001 still flags the writes through `.data`; TCP008 is silent.
    Written through another name, the same weights move under the snapshot: flagged."""
    (rule,) = [rule for rule in ALL_RULES if rule.code == "TCP008"]
    handle = f"def average(target):\n    sd = target.state_dict(keep_vars=True)\n    for key in sd:\n        {write}\n"
    assert lint_source(handle, rules=[rule]) == []
    assert [f.code for f in lint_source(handle, rules=ALL_RULES)] == ["TCP001"]
    moved = "def average(target):\n    sd = target.state_dict()\n    for p in target.parameters():\n" \
            "        p.data.fill_(0.)\n    target.load_state_dict(sd)\n"
    assert [(f.line, f.code) for f in lint_source(moved, rules=[rule])] == [(2, "TCP008")]


# A write through `.data` in each place TCP001's analysis tells apart.
PLACES = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.fc.weight.data.normal_(0.0, 0.02)


def clip(w):
    with torch.no_grad():
        w.data.clamp_(-1.0, 1.0)


def fit(model, x, w):
    y = model(x).sum()
    w.data.add_(1.0)
    y.backward()


def train(loss, opt, w):
    loss.backward()
    opt.step()
    w.data.clamp_(0.0, 1.0)
'''
# line -> (code, what its message must say, what it must not claim)
PLACED = {
    9: ("TCP101", "in initialisation is harmless (no graph has saved the tensor yet)", "silently wrong"),
    14: ("TCP101", "inside no_grad: `.data` is redundant there, and writing the tensor itself lets autograd "
                   "raise instead of computing silently wrong gradients if a pending backward saved it", "harmless"),
    19: ("TCP001", "if a pending backward saved this tensor, its gradient is silently wrong", "harmless"),
    26: ("TCP101", "is harmless unless a graph saved before is backwarded again", "silently wrong"),
}


@pytest.mark.parametrize("fixes", [True, False], ids=["fixes", "flake8-plan"])
def test_each_place_of_a_data_write_has_its_own_true_message(fixes):
    """The flake8 plugin's plan parses some statements alone: where the place matters it
    parses their function, and the messages are the same as the whole file's."""
    findings = lint_source(PLACES, rules=ALL_RULES, fixes=fixes)
    assert findings == lint_source(PLACES, rules=ALL_RULES, shortcuts=False)
    assert [f.line for f in findings] == list(PLACED)
    for finding in findings:
        code, says, never = PLACED[finding.line]
        assert finding.code == code and says in finding.message and never not in finding.message, finding.message
    assert len({f.message for f in findings}) == len(findings)


def test_tcp101_alone_or_tcp001_alone_splits_the_same_findings():
    codes = {rule.code: rule for rule in ALL_RULES}
    both = lint_source(PLACES, rules=[codes["TCP001"], codes["TCP101"]])
    assert lint_source(PLACES, rules=[codes["TCP001"]]) == [f for f in both if f.code == "TCP001"]
    assert lint_source(PLACES, rules=[codes["TCP101"]]) == [f for f in both if f.code == "TCP101"]


def test_the_editors_ignore_keeps_only_what_may_hurt():
    """The language server's settings choose rules as the CLI does: `ignore: ["TCP1"]`."""
    from flake8_tensorcopy.server.settings import Settings

    rules = Settings.from_client({"flake8-tensorcopy": {"ignore": ["TCP1"]}}).rules
    assert "TCP101" not in {rule.code for rule in rules}
    assert [(f.line, f.code) for f in lint_source(PLACES, rules=rules)] == [(19, "TCP001")]


def test_an_ema_through_the_targets_state_dict_leaves_the_sources_snapshot_alone():
    """The writes go through the target's state_dict: they move the target, not the source
    (pytorch-ddpm's ``ema``). A write through ``.data`` that no state_dict names may move any."""
    from flake8_tensorcopy.rules.tcp008_state_dict_snapshot import StateDictSnapshot

    ema = (
        "def ema(source, target, decay):\n    source_dict = source.state_dict()\n    target_dict = target.state_dict()\n"
        "    for key in source_dict.keys():\n"
        "        target_dict[key].data.copy_(target_dict[key].data * decay + source_dict[key].data * (1 - decay))\n"
    )
    assert lint_source(ema, rules=[StateDictSnapshot]) == []
    moved = (
        "def f(source, params):\n    source_dict = source.state_dict()\n    for p in params:\n"
        "        p.data.mul_(0.5)\n    return source_dict\n"
    )
    # Returned at once is no keeping; read after an unknown write it is.
    kept = moved.replace("    return source_dict\n", "    source.load_state_dict(source_dict)\n")
    assert [f.code for f in lint_source(kept, rules=[StateDictSnapshot])] == ["TCP008"]
