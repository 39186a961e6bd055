"""A thousand agents of the addon in the real engine (the Godot 4.6 web runtime in headless
Chromium) against a real brain: tools/engine_bench.py's crowd at the size issue 32 asks for. Its
report (requests and Decides a second, frame times, the page's CPU) is printed and written to
test-artifacts/engine-bench-1000.json; `python -m tools.engine_bench --agents 2000` runs it larger."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tools import engine_bench, godot_web

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.mark.godot
@pytest.mark.slow
def test_a_thousand_agents_spawn_and_act_in_a_few_requests_a_second(brain_factory, tmp_path: Path) -> None:
    """Every one of 1,000 agents spawns and has a decision applied (it walked); most are a crowd
    or out of view, as the addon tells from the camera; once they all have decided, their
    Decides reach the brain gathered in DecideBatch calls: a few requests a second, each
    carrying several Decides, and nothing else; no call fails (in the busy ward on screen an agent
    sees more than the 64 perceptions a Decide may carry: it sends the nearest)."""
    if not Path(godot_web.CHROMIUM).exists():
        pytest.skip(f"{godot_web.CHROMIUM} is not installed (apt-get install chromium)")
    brain = brain_factory(web_root=engine_bench.build(tmp_path), background_thinking=True)
    report = engine_bench.measure(brain.http_url, agents=1000, seconds=10)
    report["load_average"] = os.getloadavg()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "engine-bench-1000.json").write_text(json.dumps(report, indent=1))
    print(engine_bench.table(report), f"load average {report['load_average']}", sep="\n")
    assert report["all_decided"] and (report["spawned"], report["decided"], report["walked"]) == (1000, 1000, 1000), (
        report)
    attention = report["attention"]
    assert attention["in_view"] > 0 and attention["crowd"] + attention["out_of_view"] > 700, attention
    steady = report["steady"]
    assert set(steady["requests"]) == {"DecideBatch"}, steady
    # Gathered: each request carries several Decides (how many a second, the printed table says).
    assert steady["decides"] >= 2 * sum(steady["requests"].values()), steady
    assert not report["brain_errors"] and not report["problems"], (report["brain_errors"], report["problems"])
