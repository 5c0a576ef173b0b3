"""A least-recently-used cache bounded twice: by entries, and by the characters of text
its entries hold. The server runs all day on documents of any size: a count alone lets
sixteen 1 MB documents stay resident, a size alone lets a million tiny entries.
Thread-safe: the server's lint and fix threads share caches."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class BoundedCache(Generic[Value]):
    def __init__(self, entries: int, characters: int, dropped: Callable[[Value], None] | None = None) -> None:
        self._items: OrderedDict[Hashable, tuple[Value, int]] = OrderedDict()
        self._entries = entries
        self._characters = characters
        self.characters = 0  # held now
        self._lock = threading.Lock()
        self._dropped = dropped  # told of each value the cache lets go (evicted, replaced, popped)

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> Value | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def peek(self, key: Hashable) -> Value | None:
        """The entry of ``key``, as ``get`` gives it, but left where it is in the order of use."""
        with self._lock:
            item = self._items.get(key)
            return None if item is None else item[0]

    def put(self, key: Hashable, value: Value, characters: int) -> None:
        """Keep ``value`` (which holds ``characters`` of text); the least recently used
        entries go while either bound is passed. The newest entry always stays."""
        with self._lock:
            self._pop(key)
            self._items[key] = (value, characters)
            self.characters += characters
            while len(self._items) > 1 and (len(self._items) > self._entries or self.characters > self._characters):
                _, (evicted, size) = self._items.popitem(last=False)
                self.characters -= size
                self._drop(evicted)

    def resize(self, key: Hashable, characters: int) -> None:
        """Count ``characters`` for the entry of ``key`` now (its value grew), leaving it where
        it is in the order of use; the bounds hold again at the next ``put`` or ``trim``."""
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self.characters += characters - item[1]
                self._items[key] = (item[0], characters)

    def trim(self) -> None:
        """Let go of entries while either bound is passed, the newest too (``put`` keeps it)."""
        with self._lock:
            while self._items and (len(self._items) > self._entries or self.characters > self._characters):
                _, (evicted, size) = self._items.popitem(last=False)
                self.characters -= size
                self._drop(evicted)

    def values(self) -> list[Value]:
        """What it holds now, least recently used first."""
        with self._lock:
            return [value for value, _ in self._items.values()]

    def pop(self, key: Hashable) -> None:
        with self._lock:
            self._pop(key)

    def clear(self) -> None:
        with self._lock:
            held = [value for value, _ in self._items.values()]
            self._items.clear()
            self.characters = 0
            for value in held:
                self._drop(value)

    def _pop(self, key: Hashable) -> None:
        item = self._items.pop(key, None)
        if item is not None:
            self.characters -= item[1]
            self._drop(item[0])

    def _drop(self, value: Value) -> None:
        if self._dropped is not None:
            self._dropped(value)
