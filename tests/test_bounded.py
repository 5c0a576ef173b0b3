"""BoundedCache tells its owner of every value it lets go, and trim() lets go even of the
newest entry once a bound is passed (put keeps it, so that the value just made is used)."""

from flake8_tensorcopy.runtime.bounded import BoundedCache


def _cache(entries: int, characters: int) -> tuple[BoundedCache[str], list[str]]:
    dropped: list[str] = []
    return BoundedCache(entries, characters, dropped=dropped.append), dropped


def test_each_value_let_go_is_told_once():
    cache, dropped = _cache(entries=2, characters=100)
    cache.put("a", "A", 1)
    cache.put("b", "B", 1)
    cache.put("c", "C", 1)  # over two entries: the least recently used goes
    assert dropped == ["A"]
    cache.put("b", "B2", 1)  # replaced
    cache.pop("c")
    assert dropped == ["A", "B", "C"]
    cache.clear()
    assert dropped == ["A", "B", "C", "B2"]
    assert len(cache) == 0 and cache.characters == 0


def test_put_keeps_the_newest_entry_and_trim_lets_it_go():
    cache, dropped = _cache(entries=4, characters=10)
    cache.put("small", "S", 4)
    cache.put("huge", "H", 50)
    assert cache.get("huge") == "H" and dropped == ["S"]
    cache.trim()
    assert cache.get("huge") is None and dropped == ["S", "H"] and cache.characters == 0
    cache.put("small", "S", 4)
    cache.trim()  # within its bounds: nothing goes
    assert cache.get("small") == "S" and dropped == ["S", "H"]


def test_peek_reads_an_entry_without_making_it_recent():
    cache, dropped = _cache(entries=2, characters=100)
    cache.put("a", "A", 1)
    cache.put("b", "B", 1)
    assert cache.peek("a") == "A" and cache.peek("missing") is None
    cache.put("c", "C", 1)  # "a" is still the least recently used: it goes
    assert dropped == ["A"]
