"""The reused vectors (llm/vector_cache.py): bounded by memory, least recently used forgotten
first, keyed by the whole text, safe from several threads. What embedders do with them is in
tests/test_embeddings.py, against the real model and a real HTTP endpoint."""

from __future__ import annotations

import sys
import threading
import tracemalloc

import numpy as np

from brain_server.llm.vector_cache import VectorCache, entry_bytes

DIM = 384


def _rows(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


def test_the_bound_holds_and_the_least_recently_used_go_first() -> None:
    texts = [f"Klaus Mueller {i} is sleeping" for i in range(10)]
    cache = VectorCache(5 * entry_bytes(texts[0], DIM) + 10)
    cache.put_many(texts[:5], _rows(5))
    cache.get_many([texts[0]])  # used again: the newest now
    cache.put_many(texts[5:7], _rows(2, seed=1))
    kept = cache.get_many(texts)
    assert [row is not None for row in kept] == [True, False, False, True, True, True, True, False, False, False]
    assert len(cache) == 5 and cache.size_bytes <= cache.max_bytes
    cache.put_many(["a text longer than the whole bound " * 300], _rows(1))  # never kept, nothing forgotten for it
    assert len(cache) == 5


def test_a_kept_row_is_the_row_given_bit_for_bit() -> None:
    rows = _rows(3)
    rows[1, 0] = np.float32(1e-45)  # a denormal survives too
    cache = VectorCache(1 << 20)
    cache.put_many(["a", "b", "c"], rows)
    kept = cache.get_many(["c", "b", "zzz", "a"])
    assert kept[2] is None
    for row, i in zip([kept[0], kept[1], kept[3]], [2, 1, 0], strict=True):
        assert row == rows[i].tobytes()


def test_memory_per_entry_is_as_stated() -> None:
    """`entry_bytes`, which the bound counts, is what an entry really takes (within 10%)."""
    n = 2000
    rows = _rows(n)
    cache = VectorCache(1 << 30)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        cache.put_many([f"Isabella Rodriguez {i} is working at the cafe" for i in range(n)], rows)
        taken = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.9 < taken / cache.size_bytes < 1.1, (taken / n, cache.size_bytes / n)


def test_threads_share_it_safely() -> None:
    cache = VectorCache(200 * entry_bytes("text 000", DIM))
    rows = _rows(400)
    failures: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(1500):
                j = (offset + i) % 400
                text = f"text {j:03d}"
                if (row := cache.get_many([text])[0]) is None:
                    cache.put_many([text], rows[j : j + 1])
                elif row != rows[j].tobytes():
                    raise AssertionError(f"{text} got another text's vector")
        except BaseException as exc:  # noqa: BLE001 - reported by the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(k * 37,)) for k in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads taking turns within every lookup and store
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not failures
    assert cache.size_bytes == len(cache) * entry_bytes("text 000", DIM) <= cache.max_bytes
