"""``positions.starts`` says where every node starts, and ``positions.ranges`` where it
starts and ends, exactly as LibCST's PositionProvider does, on real code: the fixtures,
this package, and torch's own sources (3.11's test extra installs torch), every node of
each file asked at once and a few alone."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from tiers import by_size

from flake8_tensorcopy.positions import ranges, starts

pytestmark = pytest.mark.compat

ROOT = Path(__file__).resolve().parent.parent


def _sources() -> list[Path]:
    paths = sorted((ROOT / "fixtures").glob("*.py")) + sorted((ROOT / "flake8_tensorcopy").rglob("*.py"))
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.origin is not None:
        torch_root = Path(spec.origin).parent
        paths += [torch_root / "nn" / "modules" / "module.py", torch_root / "optim" / "adam.py",
                  torch_root / "utils" / "data" / "dataloader.py"]
    return paths


def _all_nodes(module: cst.Module) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []

    class Collector(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    module.visit(Collector())
    return nodes


@dataclass(frozen=True)
class Parsed:
    module: cst.Module
    expected: Mapping[cst.CSTNode, CodeRange]  # LibCST's PositionProvider
    nodes: list[cst.CSTNode]


@pytest.fixture(scope="module", params=by_size(_sources()))
def parsed(request) -> Parsed:
    """Each file parsed and resolved once for both tests below (pytest runs them one file at a time)."""
    module = cst.parse_module(request.param.read_text(encoding="utf-8"))
    return Parsed(module, MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider), _all_nodes(module))


def test_starts_match_the_position_provider(parsed):
    module, expected, nodes = parsed.module, parsed.expected, parsed.nodes
    everything = starts(module, nodes)
    assert [everything[id(node)] for node in nodes] == [
        (expected[node].start.line, expected[node].start.column) for node in nodes
    ]
    for node in nodes[:: max(1, len(nodes) // 7)]:  # asked alone, as a finding asks
        start = expected[node].start
        assert starts(module, [node])[id(node)] == (start.line, start.column)


def _provider_range(position) -> tuple[tuple[int, int], tuple[int, int]]:
    return (position.start.line, position.start.column), (position.end.line, position.end.column)


def test_ranges_match_the_position_provider(parsed):
    module, expected, nodes = parsed.module, parsed.expected, parsed.nodes
    everything = ranges(module, nodes)
    assert [everything[id(node)] for node in nodes] == [_provider_range(expected[node]) for node in nodes]
    for node in nodes[:: max(1, len(nodes) // 7)]:  # asked alone, as a finding asks
        assert ranges(module, [node])[id(node)] == _provider_range(expected[node])


@pytest.mark.parametrize(
    "source",
    [
        "@decorated\n@twice\ndef f(x):\n    return (x)\n",  # a decorated def starts at its decorator
        "if True:\r\n    y = [\r\n        1,\r\n    ]\r\n",  # \r\n newlines
        "x = 1\rif x:\r    y = 'é' + \\\r   'ü'\r",  # \r newlines, a continuation, non-ASCII
        "class A:\n\n    # comment\n    async def f(self):\n        async with a as b:\n            pass\n",
    ],
)
def test_starts_on_awkward_layouts(source):
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = _all_nodes(module)
    found = starts(module, nodes)
    assert [found[id(node)] for node in nodes] == [
        (expected[node].start.line, expected[node].start.column) for node in nodes
    ]
    spans = ranges(module, nodes)
    assert [spans[id(node)] for node in nodes] == [_provider_range(expected[node]) for node in nodes]
