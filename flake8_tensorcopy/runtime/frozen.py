"""Small immutable values that cost nothing to define.

``dataclass(frozen=True)`` writes the source of each class's methods and compiles it when
the module is imported, which every flake8 run on one file (an editor's, a pre-commit
hook's) pays again for each class the plugin defines. A ``Frozen`` class names its fields
in ``__slots__`` and sets them in its own ``__init__`` (``_set``); comparing, hashing,
printing and pickling by those fields are written here, once.
"""

from __future__ import annotations

import operator
from typing import Any


class Frozen:
    """Equal when of the same class with equal fields, hashed and printed by its fields, and
    immutable once ``__init__`` has set them."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(name for klass in reversed(cls.__mro__) for name in vars(klass).get("__slots__", ()))
        if not cls._fields:
            raise TypeError(f"{cls.__qualname__} names no fields in __slots__")
        getter = operator.attrgetter(*cls._fields)
        # attrgetter of one name gives the value itself: a tuple always, so that a class of
        # one field hashes and compares as one of several would
        cls._field_values = staticmethod(getter if len(cls._fields) > 1 else lambda value: (getter(value),))

    def _set(self, **fields: Any) -> None:
        """Set fields from ``__init__`` (the only place they are set)."""
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    @staticmethod
    def _field_values(value: Frozen) -> tuple:  # each class's own, made by __init_subclass__
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._field_values(self) == self._field_values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._field_values(self))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self._field_values(self)))
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a {type(self).__qualname__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a {type(self).__qualname__}")

    def __reduce__(self) -> tuple:
        """Pickled and copied by calling the class again: ``__init__`` takes the fields in
        ``__slots__`` order."""
        return type(self), self._field_values(self)
