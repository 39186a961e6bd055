"""The brain's log lines say which NPC and which decision they belong to, explicitly: the ids travel
with the work's trace (`Trace.log`), never in a hidden context (issue 41). Read as `--log-json`
writes them (runtime/logs.py), to stderr."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
import io
import json
import logging
from pathlib import Path
import re
import sys
import threading
import time

import pytest
import structlog

from brain_server.api.service import BrainCore
from brain_server.config import Settings
from brain_server.runtime.logs import CHATTY_LOGGERS, configure
from npc_brain.v1 import brain_pb2 as pb
from tests.test_mind import klaus
from tests.test_untrusted_races import request
from tests.town import spawn_json, world_json
from tests.waits import wait_until_async

ROOT = Path(__file__).resolve().parent.parent
HIDDEN_CONTEXT = re.compile(r"contextvars|ContextVar")


def test_the_brain_binds_nothing_in_a_hidden_context() -> None:
    """No ContextVar in the brain: a value bound there reaches whatever task copies the context
    next (another NPC's work started meanwhile) and none that does not (a loop of its own)."""
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "brain_server").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if HIDDEN_CONTEXT.search(line)]
    assert found == []


Lines = Callable[[], list[dict]]


@pytest.fixture
def json_lines(capsys: pytest.CaptureFixture[str]) -> Iterator[Lines]:
    """Logging set up as `--log-json` sets it up; the JSON lines written since the last call."""
    saved, root = structlog.get_config(), logging.getLogger()
    handlers, level = root.handlers[:], root.level
    chatty = {name: logging.getLogger(name).level for name in CHATTY_LOGGERS}
    configure(json=True)
    yield lambda: [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    structlog.configure(**saved)
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, was in chatty.items():
        logging.getLogger(name).setLevel(was)
    logging.captureWarnings(False)


async def _two_decides(core: BrainCore, written: Lines) -> tuple[list[dict], dict[str, str]]:
    """Isabella and Klaus decide at once on one loop; the lines logged until their work is done,
    and each Decide's trace id."""
    await core.register_world(request(pb.RegisterWorldRequest, world_json()))
    for body in (spawn_json(), klaus()):
        await core.spawn_npc(request(pb.SpawnNpcRequest, body))
    written()
    lines: list[dict] = []

    def planned() -> bool:  # in the background a plan's trace is kept, the NPC's latest, once it is made
        lines.extend(written())
        return len(_failed_plans(lines)) == 4 and (
            not core.settings.background_thinking or all(core.traces.latest(npc).kind == "background"
                                                         for npc in ("isabella", "klaus")))

    try:
        answers = await asyncio.gather(*[core.decide(request(pb.DecideRequest, {
            "npcId": npc, "gameTime": "2026-02-13T09:00:00Z"})) for npc in ("isabella", "klaus")])
        await wait_until_async(planned, what="both NPCs' failed attempts logged and their plans made")
    finally:
        await core.close()
    lines.extend(written())
    return lines, {"isabella": answers[0].trace_id, "klaus": answers[1].trace_id}


def _failed_plans(lines: list[dict]) -> list[dict]:
    """The day plans' failed attempts (a retry may also find its pooled connection closed by the fault)."""
    return [line for line in lines if line["event"] == "llm_attempt_failed" and line["purpose"] == "daily_plan"]


@pytest.mark.parametrize("background", [False, True], ids=["lockstep", "background"])
def test_each_decides_lines_carry_its_own_ids(run, fake_llm, tmp_path, json_lines: Lines, background: bool) -> None:
    """Every line of two NPCs' Decides made at once on one loop names its NPC and its trace, the
    one GetTrace shows: in lockstep each plans its day inside its Decide (its two attempts fail),
    so those lines carry the Decide's ids; in the background the Decide answers at once and the
    plan is made after it, with a trace of its own."""
    fake_llm.queue(*[{"fault": "http_500"}] * 4, purpose="daily_plan")  # both attempts of each NPC: a fallback plan
    cores: list[BrainCore] = []

    async def scenario(stream) -> tuple[list[dict], dict[str, str]]:
        cores.append(BrainCore(Settings(data_dir=tmp_path, background_thinking=background, prepare_ahead_minutes=0),
                               stream))
        return await _two_decides(cores[0], json_lines)

    lines, decides = run(scenario)
    traces = cores[0].traces
    failed = _failed_plans(lines)
    decided = [line for line in lines if line["event"] == "decided"]
    assert sorted((line["npc_id"], line["trace_id"]) for line in decided) == sorted(decides.items())
    assert sorted(line["npc_id"] for line in failed) == ["isabella", "isabella", "klaus", "klaus"]
    assert all(line.get("npc_id") in decides and line.get("trace_id") for line in lines), \
        [line for line in lines if not (line.get("npc_id") in decides and line.get("trace_id"))]
    for line in failed:
        trace = traces.get(line["trace_id"])
        assert trace is not None and trace.npc_id == line["npc_id"], line
        assert trace.kind == ("background" if background else "decide"), line
        assert (line["trace_id"] == decides[line["npc_id"]]) is not background, line


class _SlowStderr(io.StringIO):
    """A stream that yields the GIL inside every write, as a pipe to a busy reader may: a line
    written in two calls (text, then its newline) would let another thread's line in between."""

    def write(self, text: str) -> int:
        written = super().write(text)
        time.sleep(0.0005)
        return written


def test_lines_from_the_brain_and_from_a_library_thread_never_share_a_line(
        json_lines: Lines, monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _SlowStderr()
    monkeypatch.setattr(sys, "stderr", stream)

    def brain_lines() -> None:
        for n in range(40):
            structlog.get_logger().info("brain_line", n=n)

    def library_lines() -> None:
        for n in range(40):
            logging.getLogger("uvicorn.error").warning("library line %d", n)

    threads = [threading.Thread(target=brain_lines), threading.Thread(target=library_lines)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 80
    parsed = [json.loads(line) for line in lines]
    assert sorted(line["event"] for line in parsed if line.get("logger") != "uvicorn.error") == ["brain_line"] * 40
