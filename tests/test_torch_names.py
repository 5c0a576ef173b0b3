"""Every hand-kept name table (what a type stub cannot say: views, copies, in-place writes
that change only metadata) names something the pinned torch has.

``analysis/torch_api.py`` is generated from torch's stubs; these tables are written by
hand, so a misspelt or invented name (``max_pool`` as a tensor method, ``retain_grad_``)
would sit there unnoticed. A name kept on purpose for older torch is listed in
``OLDER_TORCH`` here and says so in a comment beside its table.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_modules import import_bench_modules

from flake8_tensorcopy.analysis import vocabulary
from flake8_tensorcopy.rules import (
    tcp001_data_mutation,
    tcp005_tensor_from_tensor,
    tcp006_inplace_on_conversion,
    tcp007_inplace_advanced_index,
)

torch = pytest.importorskip("torch", reason="needs the pinned torch (no CPU wheel for this Python here)")

ROOT = Path(__file__).resolve().parent.parent
shapes = import_bench_modules(ROOT / "bench" / "accuracy", ("statements", "corpus", "labels", "findings", "shapes"))[
    "shapes"
]

# Named tensors' `rename_` is gone from torch 2.13; application code written for older
# torch still calls it, and it changes names, not values.
OLDER_TORCH = frozenset({"rename_"})

TENSOR_MEMBER_TABLES = {
    "vocabulary.TENSOR_ATTRIBUTES": vocabulary.TENSOR_ATTRIBUTES,
    "vocabulary.VIEW_METHODS": vocabulary.VIEW_METHODS,
    "vocabulary.CONVERSION_METHODS": vocabulary.CONVERSION_METHODS,
    "vocabulary.FRESH_METHODS": vocabulary.FRESH_METHODS,
    "vocabulary.INDEX_METHODS": vocabulary.INDEX_METHODS,
    "vocabulary._NON_WRITING_INPLACE": vocabulary._NON_WRITING_INPLACE,
    "vocabulary.DETACHING": vocabulary.DETACHING,
    "vocabulary.GRAPH_PRESERVING": vocabulary.GRAPH_PRESERVING,
    "tcp001._METADATA_INPLACE": tcp001_data_mutation._METADATA_INPLACE,
    "tcp001._AUGMENTED_METHODS": frozenset(tcp001_data_mutation._AUGMENTED_METHODS.values()),
    "tcp006._VIEW_ATTRIBUTES": tcp006_inplace_on_conversion._VIEW_ATTRIBUTES,
    "tcp006._DTYPES": frozenset(tcp006_inplace_on_conversion._DTYPES),
    "tcp006._REORDERING": tcp006_inplace_on_conversion._REORDERING,
    "tcp007 in-place methods": frozenset(tcp007_inplace_advanced_index._ASSIGNED)
    | frozenset(tcp007_inplace_advanced_index._AUGMENTED),
    "shapes.VIEW_METHODS": shapes.VIEW_METHODS,
    "shapes.VIEW_ATTRIBUTES": shapes.VIEW_ATTRIBUTES,
    "shapes.CONVERSION_METHODS": shapes.CONVERSION_METHODS,
    "shapes.NON_WRITING_INPLACE": shapes.NON_WRITING_INPLACE,
    "shapes.PLAIN_METHODS": shapes.PLAIN_METHODS,
}
TORCH_FUNCTION_TABLES = {
    "vocabulary.FRESH_FUNCTIONS": vocabulary.FRESH_FUNCTIONS,
    "vocabulary.INDEX_FUNCTIONS": vocabulary.INDEX_FUNCTIONS,
    "vocabulary.INDEX_CONSTRUCTORS": vocabulary.INDEX_CONSTRUCTORS,
}
QUALIFIED_TABLES = {
    "vocabulary.PARAMETER_CONSTRUCTORS": vocabulary.PARAMETER_CONSTRUCTORS,
    "vocabulary.TENSOR_ANNOTATIONS": vocabulary.TENSOR_ANNOTATIONS,
    "vocabulary.NO_GRAD_CONTEXTS": vocabulary.NO_GRAD_CONTEXTS,
    "vocabulary.DATA_LOADERS": vocabulary.DATA_LOADERS,
    "vocabulary.VARIABLE_CONSTRUCTORS": vocabulary.VARIABLE_CONSTRUCTORS,
    "vocabulary.FUNCTIONAL_LOSSES": frozenset(f"torch.nn.functional.{name}" for name in vocabulary.FUNCTIONAL_LOSSES),
    "tcp001._NO_GRAD": tcp001_data_mutation._NO_GRAD,
    "tcp005._LEGACY_CONSTRUCTORS": tcp005_tensor_from_tensor._LEGACY_CONSTRUCTORS,
}


def _resolves(qualified: str) -> bool:
    head, *rest = qualified.split(".")
    assert head == "torch", qualified
    value = torch
    for part in rest:
        if not hasattr(value, part):
            return False
        value = getattr(value, part)
    return True


@pytest.mark.parametrize("table", sorted(TENSOR_MEMBER_TABLES))
def test_tensor_member_tables_name_tensor_members(table):
    assert sorted(TENSOR_MEMBER_TABLES[table] - OLDER_TORCH - set(dir(torch.Tensor))) == []


@pytest.mark.parametrize("table", sorted(TORCH_FUNCTION_TABLES))
def test_torch_function_tables_name_torch_functions(table):
    assert sorted(name for name in TORCH_FUNCTION_TABLES[table] if not callable(getattr(torch, name, None))) == []


@pytest.mark.parametrize("table", sorted(QUALIFIED_TABLES))
def test_qualified_tables_resolve_in_torch(table):
    assert sorted(name for name in QUALIFIED_TABLES[table] if not _resolves(name)) == []


def test_names_kept_for_older_torch_are_really_gone():
    """Once torch has such a name again, it needs no exception here."""
    assert sorted(OLDER_TORCH & set(dir(torch.Tensor))) == []
