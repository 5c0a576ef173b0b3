"""The rule registry: one module per rule, listed here in code order.

A rule's module is imported when its rule is first asked for: a flake8 run on a file
that holds hazards of two rules imports those two, not all of them (``rule_class``).
``ALL_RULES`` imports every one, for the front ends that list or document them all.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..rule import Rule

# code: (module in this package, rule class); tests/test_rules.py checks each entry.
REGISTRY = {
    "TCP001": ("tcp001_data_mutation", "DataMutation"),
    "TCP002": ("tcp002_clone_detach", "CloneDetach"),
    "TCP003": ("tcp003_deepcopy_tensor", "DeepcopyTensor"),
    "TCP004": ("tcp004_inplace_detached", "InplaceDetached"),
    "TCP005": ("tcp005_tensor_from_tensor", "TensorFromTensor"),
    "TCP006": ("tcp006_inplace_on_conversion", "InplaceOnConversion"),
    "TCP007": ("tcp007_inplace_advanced_index", "InplaceAdvancedIndex"),
    "TCP008": ("tcp008_state_dict_snapshot", "StateDictSnapshot"),
    "TCP009": ("tcp009_graph_accumulation", "GraphAccumulation"),
    "TCP010": ("tcp010_numpy_alias_write", "NumpyAliasWrite"),
    "TCP011": ("tcp011_parameter_rewrap_tie", "ParameterRewrapTie"),
    "TCP012": ("tcp012_repeated_module_instance", "RepeatedModuleInstance"),
    "TCP101": ("tcp101_data_write_outside_graph", "DataWriteOutsideGraph"),
}
CODES = tuple(REGISTRY)


def rule_class(code: str) -> type[Rule]:
    """The rule of ``code`` (a KeyError for a code no rule has), its module imported now."""
    module, name = REGISTRY[code]
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __getattr__(name: str):
    if name == "ALL_RULES":
        rules = tuple(rule_class(code) for code in CODES)
        globals()["ALL_RULES"] = rules  # later reads find it without this hook
        return rules
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
