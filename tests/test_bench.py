"""Smoke tests of `npc-brain bench`: each benchmark runs tiny and writes its JSON (no timing checks)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from brain_server.cli import main
from npc_lab.sim.runner import Sim
from tests.sim_town import config, small_town
from tests.test_sim import needs_data

pytestmark = pytest.mark.slow


def test_calls_from_a_run_folder(fake_llm, tmp_path: Path, capsys) -> None:
    town, residents, scenario = small_town(hours=3)
    asyncio.run(Sim(town, residents, scenario, config(tmp_path / "run", fake_llm.base_url, tick_s=60,
                                                      interview=False)).run())
    main(["bench", "calls", "--run", str(tmp_path / "run"), "--out", str(tmp_path / "b")])
    result = json.loads((tmp_path / "b" / "bench-calls.json").read_text())["result"]
    assert result["npcs"] == 3 and 0 < result["awake_npc_hours"] <= 9 and result["calls"] > 0
    assert "daily_plan" in result["by_purpose"]
    assert "calls / NPC / awake hour" in capsys.readouterr().out


@needs_data
def test_decide_retrieval_embed_run_tiny(tmp_path: Path) -> None:
    main(["bench", "decide", "--sizes", "3", "--samples", "5", "--out", str(tmp_path)])
    decide = json.loads((tmp_path / "bench-decide.json").read_text())
    assert decide["machine"] and decide["result"]["3"]["grpc_p50_ms"] > 0
    main(["bench", "retrieval", "--memories", "40", "--samples", "5", "--out", str(tmp_path)])
    assert set(json.loads((tmp_path / "bench-retrieval.json").read_text())["result"]) == {"edge", "local"}
    main(["bench", "embed", "--samples", "16", "--out", str(tmp_path)])
    assert json.loads((tmp_path / "bench-embed.json").read_text())["result"]["batch_8"] > 0


@needs_data
def test_embedded_runs_tiny(tmp_path: Path, capsys) -> None:
    from brain_server.llm import embedded

    try:
        embedded.model_path()
    except embedded.EmbeddedLLMUnavailable as exc:
        pytest.skip(f"embedded-llm extra not installed ({exc})")
    main(["bench", "embedded", "--samples", "1", "--purposes", "importance", "choose_address", "--out", str(tmp_path)])
    result = json.loads((tmp_path / "bench-embedded.json").read_text())["result"]
    assert set(result["purposes"]) == {"importance", "choose_address"} and result["threads"] == 1
    for purpose in result["purposes"].values():
        assert purpose["calls"] == 1 and purpose["valid_first"] + purpose["valid_after_retry"] + purpose["fallback"] == 1
    assert "usable" in capsys.readouterr().out


@needs_data
def test_realtime_runs_briefly_and_reports_every_figure(tmp_path: Path) -> None:
    """The real-time benchmark for 1.5 wall minutes (game 07:00-08:30), 10 NPCs, the fake at 0.3 s:
    behaviour, not wall-clock figures."""
    from npc_lab.realtime import FIELDS

    main(["bench", "realtime", "--minutes", "1.5", "--latency", "0.3", "--npcs", "10", "--out", str(tmp_path)])
    result = json.loads((tmp_path / "bench-realtime.json").read_text())["result"]
    assert set(FIELDS) <= set(result), set(FIELDS) - set(result)
    assert result["errors"] == 0 and result["timeouts"] == 0, result["errors_by_status"]
    assert {"grpc", "connect"} <= set(result["decide"]) and all(result["decide"][t]["count"] > 10
                                                                 for t in ("grpc", "connect"))
    # NPCs leave their provisional actions once their plans land.
    assert result["provisional_share"]["after_first_hour"] < 0.5 and result["minutes_by_source"]["plan"] > 0
    assert result["talk"]["count"] >= 1 and result["talk"]["errors"] == 0
    assert list(result["queues"]) == ["player", "social", "plan_now", "ahead", "background"]
    assert result["queues"]["player"]["served"] >= 1 and result["llm"]["calls"] > 0
