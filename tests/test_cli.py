"""The `npc-brain` command: settings from TOML and environment, one-line errors, JSON logs."""

from __future__ import annotations

import json
import os
from pathlib import Path
import subprocess
import sys

from brain_server.config import Settings
from tests.town import spawn_json, world_json
from tests.waits import wait_until
from tests.zygote import ZYGOTE

ROOT = Path(__file__).resolve().parent.parent


def npc_brain(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m brain_server.cli *args` to its end (forked from the zygote, tests/zygote.py). Its
    limit is a hang guard: `check` on the embedded defaults took 75 s at a load average of 20."""
    return ZYGOTE.run("brain_server.cli", list(args), dict(os.environ) if env is None else env, ROOT, timeout=300)


def test_environment_beats_the_toml_file(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "brain.toml"
    config.write_text('llm_model = "from-file"\ngrpc_port = 6000\nweight_relevance = 2.5\n')
    monkeypatch.setenv("NPC_BRAIN_CONFIG", str(config))
    monkeypatch.setenv("NPC_BRAIN_GRPC_PORT", "7000")
    settings = Settings()
    assert (settings.llm_model, settings.grpc_port, settings.weight_relevance) == ("from-file", 7000, 2.5)


def test_bad_settings_and_missing_config_are_one_line_errors(tmp_path: Path) -> None:
    missing = npc_brain("serve", "--config", str(tmp_path / "nope.toml"))
    assert missing.returncode != 0 and missing.stderr.strip().count("\n") == 0
    assert "does not exist" in missing.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("recency_decay = 7\n")
    invalid = npc_brain("serve", "--config", str(bad))
    assert invalid.returncode != 0 and "recency_decay" in invalid.stderr and "Traceback" not in invalid.stderr


def test_the_lab_commands_say_where_they_went() -> None:
    moved = npc_brain("sim", "--hours", "1")
    assert moved.returncode != 0 and moved.stderr.strip() == (
        "npc-brain: sim is the lab's: npc-lab sim (a checkout's tools/setup.sh installs it)")


def test_a_second_brain_on_the_same_data_dir_says_why_it_cannot_start(brain_factory) -> None:
    first = brain_factory()
    second = npc_brain("serve", env={**first.env})
    assert second.returncode != 0 and "Traceback" not in second.stderr
    assert "another" in second.stderr.lower() and second.stderr.strip().startswith("npc-brain:")


def test_json_logs_carry_npc_and_trace_ids(brain_factory) -> None:
    import httpx

    brain = brain_factory()
    with httpx.Client(base_url=brain.http_url, timeout=30) as http:
        for method, body in (("RegisterWorld", world_json()), ("SpawnNpc", spawn_json()),
                             ("Decide", {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"})):
            answered = http.post(f"/npc_brain.v1.BrainService/{method}", json=body)
            assert answered.status_code == 200
        trace_id = answered.json()["traceId"]  # the Decide's own (the NPC's latest may be later thinking's)
        assert http.post("/npc_brain.v1.BrainService/GetTrace", json={"traceId": trace_id}).status_code == 200
    # The brain's output is read by a thread of the test's: on a busy machine the line may come a moment later.
    decided = wait_until(lambda: [line for line in map(json.loads, [o for o in brain.output if o.startswith("{")])
                                  if line["event"] == "decided"], what="the brain logged the decision", poll_s=0.1)
    assert decided[0]["npc_id"] == "isabella" and decided[0]["trace_id"] == trace_id


def test_play_builds_the_game_and_serves_it_with_the_brain(tmp_path: Path, fake_llm) -> None:
    import os

    import httpx

    env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
    env |= {"NPC_BRAIN_LLM_BASE_URL": fake_llm.base_url, "NPC_BRAIN_GRPC_PORT": "0", "NPC_BRAIN_HTTP_PORT": "0"}
    play = subprocess.Popen([sys.executable, "-m", "npc_lab.cli", "play", "--data-dir", str(tmp_path),
                             "--time-scale", "120"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        url = next(line.split("open ", 1)[1].split()[0] for line in play.stdout if "npc-lab: open " in line)
        assert url.endswith("/?time-scale=120")
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200 and "<canvas" in page.text
        assert page.headers["cross-origin-opener-policy"] == "same-origin"
        assert httpx.get(url.split("?")[0] + "game.pck", timeout=10).content[:4] == b"GDPC"
        rpc = httpx.post(url.split("?")[0] + "npc_brain.v1.BrainService/GetUsage", json={}, timeout=10)
        assert rpc.status_code == 200
    finally:
        play.terminate()
        play.wait(15)
