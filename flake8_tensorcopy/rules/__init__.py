"""The rule registry: one module per rule, listed here in code order."""

from .tcp001_data_mutation import DataMutation
from .tcp002_clone_detach import CloneDetach
from .tcp003_deepcopy_tensor import DeepcopyTensor
from .tcp004_inplace_detached import InplaceDetached
from .tcp005_tensor_from_tensor import TensorFromTensor
from .tcp006_inplace_on_conversion import InplaceOnConversion
from .tcp007_inplace_advanced_index import InplaceAdvancedIndex
from .tcp008_state_dict_snapshot import StateDictSnapshot
from .tcp009_graph_accumulation import GraphAccumulation
from .tcp010_numpy_alias_write import NumpyAliasWrite
from .tcp011_parameter_rewrap_tie import ParameterRewrapTie
from .tcp012_repeated_module_instance import RepeatedModuleInstance
from .tcp101_data_write_outside_graph import DataWriteOutsideGraph

ALL_RULES = (
    DataMutation,
    CloneDetach,
    DeepcopyTensor,
    InplaceDetached,
    TensorFromTensor,
    InplaceOnConversion,
    InplaceAdvancedIndex,
    StateDictSnapshot,
    GraphAccumulation,
    NumpyAliasWrite,
    ParameterRewrapTie,
    RepeatedModuleInstance,
    DataWriteOutsideGraph,
)
