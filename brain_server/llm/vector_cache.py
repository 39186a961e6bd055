"""The vectors of texts embedded lately, so a text that comes again is not embedded again.

A town repeats itself: routine actions ("Klaus Mueller is sleeping"), perceptions and retrieval
queries come back word for word, and each would cost the embedder's CPU (MiniLM) or a request
(an endpoint). Vectors are kept as the embedder made them (float32 bytes, not Python floats), keyed
by the whole text, so a reused vector is the fresh one bit for bit and never another text's.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
import sys
import threading

import numpy as np

# What an entry costs besides its vector's bytes and its text: the bytes object's header and the
# ordered dict's slot and link (tracemalloc: 1,635 bytes an entry at 384 floats, text aside; checked
# in tests/test_vector_cache.py).
ENTRY_OVERHEAD = 100


def entry_bytes(text: str, dim: int) -> int:
    """Memory one cached vector of `dim` floats for `text` takes."""
    return sys.getsizeof(text) + 4 * dim + ENTRY_OVERHEAD


class VectorCache:
    """Text -> float32 vector, the least recently used forgotten first beyond `max_bytes` in all.

    Safe from any thread (a lock around each lookup or store; nothing waits while holding it).
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size_bytes = 0
        self._rows: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def get_many(self, texts: Sequence[str]) -> list[bytes | None]:
        """Each text's vector bytes, or None where it is not kept; the found ones become the newest."""
        with self._lock:
            found = [self._rows.get(text) for text in texts]
            for text, row in zip(texts, found, strict=True):
                if row is not None:
                    self._rows.move_to_end(text)
        return found

    def put_many(self, texts: Sequence[str], rows: np.ndarray) -> None:
        """Keep each text's row (float32), forgetting the least recently used beyond the bound."""
        with self._lock:
            for text, row in zip(texts, rows, strict=True):
                cost = entry_bytes(text, row.shape[0])
                if cost > self.max_bytes:
                    continue
                old = self._rows.pop(text, None)
                if old is not None:
                    self.size_bytes -= entry_bytes(text, len(old) // 4)
                self._rows[text] = row.astype(np.float32, copy=False).tobytes()
                self.size_bytes += cost
            while self.size_bytes > self.max_bytes:
                text, old = self._rows.popitem(last=False)
                self.size_bytes -= entry_bytes(text, len(old) // 4)
