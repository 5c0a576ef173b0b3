"""Opt-in rules through the real flake8 CLI: off in a default run, on with
``--enable-extensions CODE`` (flake8's mechanism: a plugin class with
``off_by_default = True`` under an entry point named by the code)."""

import subprocess
import sys
import textwrap

import pytest

from flake8_tensorcopy import plugin
from flake8_tensorcopy.rules import ALL_RULES

pytestmark = pytest.mark.compat

OPT_IN = [rule for rule in ALL_RULES if not rule.enabled_by_default]

SOURCE = textwrap.dedent(
    """\
    import torch


    def scale(img: torch.Tensor, device: str, w: torch.Tensor):
        img = img.to(device)
        img /= 255
        w.data.add_(1.0)
        return img


    def plotted(images: torch.Tensor):
        array = images.cpu().numpy()
        array *= 255
        return array


    def detached(x: torch.Tensor):
        y = x.detach()
        y.zero_()
        return x


    def wrapped(t: torch.Tensor):
        return torch.tensor(t)


    def masked(x: torch.Tensor):
        x[x > 0].zero_()
        return x


    def best(model, opt, data, score):
        kept = None
        for batch in data:
            model(batch).sum().backward()
            opt.step()
            if score() > 0.9:
                kept = model.state_dict()
        return kept


    def summed(model, data, criterion):
        total = 0
        for x, y in data:
            loss = criterion(model(x), y)
            loss.backward()
            total += loss
        return total


    def tie(self):
        self.out.weight = torch.nn.Parameter(self.emb.weight)


    def stack(d, n):
        return torch.nn.ModuleList([torch.nn.Linear(d, d)] * n)
    """
)
# Where each opt-in rule's finding in SOURCE is (one each).
EXPECTED = {
    "TCP004": "risky.py:19:5: TCP004",
    "TCP005": "risky.py:24:12: TCP005",
    "TCP006": "risky.py:6:5: TCP006",
    "TCP007": "risky.py:28:5: TCP007",
    "TCP008": "risky.py:38:20: TCP008",
    "TCP009": "risky.py:47:18: TCP009",
    "TCP010": "risky.py:13:5: TCP010",
    "TCP011": "risky.py:52:23: TCP011",
    "TCP012": "risky.py:56:32: TCP012",
}


def flake8(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "TCP", *args, "risky.py"],
        cwd=cwd, capture_output=True, text=True, timeout=300,
    )


def codes(output: str) -> list[str]:
    return [line.split(" ")[1] for line in output.splitlines() if line]


def test_every_opt_in_rule_has_its_own_checker():
    for rule in OPT_IN:
        checker = getattr(plugin, f"{rule.code}Checker")
        assert checker.off_by_default
        assert [spec.code for spec in checker.triggers] == [rule.code]
    assert not any(spec.code in {r.code for r in OPT_IN} for spec in plugin.TensorCopyChecker.triggers)


@pytest.mark.slow
@pytest.mark.parametrize("rule", OPT_IN, ids=lambda r: r.code)
def test_off_by_default_on_when_enabled(tmp_path, rule):
    assert rule.code in EXPECTED, "this test's SOURCE holds no finding of this rule: extend it"
    (tmp_path / "risky.py").write_text(SOURCE)
    default = flake8(cwd=tmp_path)
    assert codes(default.stdout) == ["TCP001"], default.stdout + default.stderr
    enabled = flake8("--enable-extensions", rule.code, cwd=tmp_path)
    assert sorted(codes(enabled.stdout)) == ["TCP001", rule.code], enabled.stdout + enabled.stderr
    assert EXPECTED[rule.code] in enabled.stdout


@pytest.mark.slow
@pytest.mark.parametrize("rule", OPT_IN, ids=lambda r: r.code)
def test_the_cli_selects_an_opt_in_rule_by_its_full_code_only(tmp_path, rule):
    (tmp_path / "risky.py").write_text(SOURCE)

    def cli(select):
        result = subprocess.run(
            [sys.executable, "-m", "flake8_tensorcopy", "--select", select, "risky.py"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )
        assert result.returncode == 1, result.stderr
        return codes(result.stdout)

    assert cli("TCP") == ["TCP001"]
    assert cli("TCP00") == ["TCP001"]
    assert sorted(cli(f"TCP,{rule.code}")) == ["TCP001", rule.code]
