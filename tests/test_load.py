"""The load test of docs/reliability.md as a test: 1,000 NPCs deciding concurrently for 60 s over each
transport against one brain on loopback (each asking again when the brain says), with no failed or
timed-out call and the brain's memory flat. About 4-5 minutes on two CPUs: `pytest
tests/test_load.py -s` prints the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import loadtest

pytestmark = pytest.mark.slow


def test_1000_npcs_decide_for_60_s_per_transport(tmp_path: Path) -> None:
    report = loadtest.main(["--npcs", "1000", "--seconds", "60", "--transports", "grpc,connect",
                            "--out", str(tmp_path / "loadtest.json")])
    assert report["npcs"] == 1000 and report["planning"]["errors"] == {} and report["planning"]["unplanned"] == 0
    for phase in report["phases"]:
        assert phase["errors"] == 0, phase["errors_by_status"]
        assert phase["wall_s"] >= 60 and phase["decides"] >= 1000, phase
    assert [p["transport"] for p in report["phases"]] == ["grpc", "connect"]
    # A leak shows in anonymous memory (the heap); file-backed pages are the store's mapped files,
    # which the kernel can drop. Both allow for the memories the town stored meanwhile.
    assert report["memory_anonymous"]["flat"], report["memory_anonymous"]
    assert len(report["rss_samples"]) >= 20
