"""The addon's verb outcomes after a failed Decide, in the real Godot 4.6 engine (web build,
headless Chromium) against a scripted brain: kept for the next Decide when the brain was away,
dropped with a warning when it refused the request, rather than refused again on every retry."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_godot_web import _error, _needs_browser, _StandInBrain
from tools import godot_web

REFUSED = "verbOutcomes[0].name 'ring_bell' is not a verb of NPC 'ada_park'"


@pytest.mark.godot
@pytest.mark.slow
def test_verb_outcomes_wait_out_an_unavailable_brain_and_are_dropped_when_refused(tmp_path: Path) -> None:
    """Ada's first decision asks for a verb at a place her world lacks (so her agent reports it
    failed at once); her next Decide meets an unavailable brain, the one after it is refused
    (invalid_argument). The outcome was re-queued after both and refused on every retry; it waits
    out the unavailable brain, and is dropped with one warning naming it when refused."""
    _needs_browser()
    web_dir = godot_web.build_web(tmp_path / "web", godot_web.make_host_project(tmp_path / "game"))
    asked: list[dict] = []

    def answer(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide" or request["npcId"] != "ada_park":
            return None
        asked.append(request)
        if len(asked) == 1:
            return 0.0, {"traceId": "bell", "action": {
                "description": "ringing the bell", "address": "Nowhere:Tower:belfry", "durationMinutes": 1,
                "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN",
                "verb": {"name": "ring_bell", "target": "Nowhere:Tower:belfry:bell"}}}
        return {2: _error("unavailable", "starting up"), 3: _error("invalid_argument", REFUSED)}.get(len(asked))

    with _StandInBrain(web_dir, answer) as brain, godot_web.HeadlessGame(f"{brain.url}/?time-scale=60") as game:
        assert game.wait_until(lambda: len(asked) >= 4, timeout_s=60), (brain.calls[-10:], game.lines[-30:])
    sent = [[o["name"] for o in r.get("verbOutcomes", [])] for r in asked[:4]]
    assert sent == [[], ["ring_bell"], ["ring_bell"], []], sent
    dropped = [line for line in godot_web.engine_problems(game.lines) if "dropped" in line]
    assert len(dropped) == 1 and REFUSED in dropped[0] and "(ring_bell)" in dropped[0], dropped
