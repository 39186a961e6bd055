"""The embedded store's power-loss window: an acknowledged write is fsynced (the WAL files and
their folder) at most `sync_after_s` after it, or before it returns with 0. A power cut cannot be
staged here, so the test watches the disk syncs themselves (the real os.fsync, recorded); that
the same files replay after SIGKILL is tests/test_durability.py's."""

from __future__ import annotations

import os
from pathlib import Path
import threading
import time

import pytest

from brain_server.persistence.storage.edge import EdgeMemoryStore
from tests.waits import wait_until


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, str]]:
    """(time, path) of every fsync the process makes, each still done for real."""
    calls: list[tuple[float, str]] = []
    real = os.fsync

    def recording(fd: int) -> None:
        real(fd)
        calls.append((time.monotonic(), os.readlink(f"/proc/self/fd/{fd}")))

    monkeypatch.setattr(os, "fsync", recording)
    return calls


def wal_synced(calls: list[tuple[float, str]], root: Path, after: float) -> set[str]:
    return {Path(p).relative_to(root).parts[0] for t, p in calls if t >= after and "/wal" in p}


def test_a_write_reaches_the_disk_within_the_window(tmp_path: Path, synced: list) -> None:
    store = EdgeMemoryStore(tmp_path, 8, sync_after_s=0.3)
    try:
        written = time.monotonic()
        store.put_record("npc", "a", {"x": 1})
        assert not wal_synced(synced, tmp_path, written)  # the answer did not wait for the disk
        # A pass ends with the records' WAL folder: wait for the whole pass, not its first file.
        wait_until(lambda: any(t >= written and p.endswith("records/wal") for t, p in synced),
                   what="the store's thread synced the write after its window", poll_s=0.05)
        assert wal_synced(synced, tmp_path, written) == {"records", "memories"}
        quiet = time.monotonic()
        time.sleep(0.8)
        assert not wal_synced(synced, tmp_path, quiet)  # nothing written: no syncs
    finally:
        store.close()


def test_zero_window_syncs_before_the_write_returns(tmp_path: Path, synced: list) -> None:
    store = EdgeMemoryStore(tmp_path, 8, sync_after_s=0)
    try:
        written = time.monotonic()
        store.put_record("npc", "a", {"x": 1})
        assert wal_synced(synced, tmp_path, written) == {"records", "memories"}
        assert not any(t.name == "store-sync" for t in threading.enumerate())
    finally:
        store.close()


def test_close_does_not_wait_out_the_window(tmp_path: Path, synced: list) -> None:
    """A window of an hour: close syncs what is pending at once rather than wait it out."""
    store = EdgeMemoryStore(tmp_path, 8, sync_after_s=3600)
    store.put_record("npc", "a", {"x": 1})
    wait_until(lambda: store._unsynced.is_set(), what="the write marked for the store's thread")
    time.sleep(0.3)  # the syncing thread is inside its window now
    closing = threading.Thread(target=store.close)
    closing.start()
    wait_until(lambda: not closing.is_alive(), what="close returned, not waiting out the hour's window", limit_s=120)
    assert wal_synced(synced, tmp_path, 0.0) == {"records", "memories"}
    reopened = EdgeMemoryStore(tmp_path, 8)
    try:
        assert reopened.get_record("npc", "a") == {"x": 1}
    finally:
        reopened.close()
