"""Misconfiguration is one clear line, not a day of silent fallbacks (issue 11): `npc-brain check`
and serve's start-up probe against the fake endpoint configured each wrong way, the response
mode stepping down at run time, a wrong embeddings endpoint, a Qdrant server down at start, and
a store that goes away and comes back. Real processes and servers on loopback, no mocks."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
import json
import os
from pathlib import Path
import socket
import threading

import grpc
import pytest
import structlog

from brain_server.llm.client import LLM
from brain_server.llm.probe import PROBE_ASKS, PROBE_RESAMPLED, Endpoint, probe_llm
from brain_server.llm.scheduler import Priority, Work
from brain_server.prompts import BUILTIN_DIR, PromptLibrary
from brain_server.prompts.importance import PROMPT as IMPORTANCE
from brain_server.prompts.importance import Importance
from npc_lab.fake_openai import FakeOpenAI
from tests.clients import Clients
from tests.conftest import BrainProcess
from tests.test_cli import npc_brain
from tests.town import spawn_json, world_json
from tests.waits import wait_until

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


# Most of these start `npc-brain check` or `serve` processes: the fast tier leaves them out.
pytestmark = pytest.mark.brain
SECRET = "sk-the-secret-never-printed"
DECIDE = {"npcId": "isabella", "gameTime": "2026-02-13T09:00:00Z"}


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A port nothing listens on, held bound for the test (a port bound and then released was
    taken by another worker's server once in a full suite, and answered)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def env_for(tmp_path: Path, **settings: object) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
    env |= {"NPC_BRAIN_GRPC_PORT": "0", "NPC_BRAIN_HTTP_PORT": "0", "NPC_BRAIN_DATA_DIR": str(tmp_path / "data")}
    return env | {f"NPC_BRAIN_{k.upper()}": str(v) for k, v in settings.items()}


def check(tmp_path: Path, **settings: object) -> tuple[int, dict[str, tuple[str, str]]]:
    """`npc-brain check`: its exit status and its rows, {part: (verdict, detail)}."""
    done = npc_brain("check", env=env_for(tmp_path, **settings))
    assert "Traceback" not in done.stderr, done.stderr
    rows = {}
    for line in done.stdout.splitlines():
        part, rest = line[:12].strip(), line[12:].split(None, 1)
        rows[part] = (rest[0], rest[1] if len(rest) > 1 else "")
    return done.returncode, rows


def serve_refuses(tmp_path: Path, **settings: object) -> str:
    """`npc-brain serve` exits at start; its last line, which must say what to fix."""
    done = npc_brain("serve", env=env_for(tmp_path, **settings))
    assert done.returncode != 0 and "npc-brain ready" not in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("npc-brain: "), done.stderr
    return last


def logged(brain: BrainProcess, event: str) -> list[dict]:
    return [entry for line in brain.output if line.startswith("{") and (entry := json.loads(line))["event"] == event]


def memories(clients: Clients) -> list[dict]:
    return clients.grpc("ListMemories", {"npcId": "isabella", "limit": 100}).get("memories", [])


@pytest.fixture
def started() -> Iterator[list[BrainProcess]]:
    brains: list[BrainProcess] = []
    yield brains
    for brain in brains:
        brain.stop()
        print(*brain.output[-40:], sep="\n")


def test_check_says_ok_for_each_part(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    status, rows = check(tmp_path, llm_base_url=fake_llm.base_url, llm_model="fake-model")
    assert status == 0, rows
    assert list(rows) == ["LLM endpoint", "LLM context", "LLM answers", "prompts", "embeddings", "store", "ports"]
    assert all(verdict == "OK" for verdict, _ in rows.values()), rows
    assert "fake-model" in rows["LLM endpoint"][1] and "json_schema" in rows["LLM endpoint"][1]
    assert "does not say its context window" in rows["LLM context"][1]
    assert rows["LLM answers"][1].endswith("purposes: none fell back")
    assert "dim 384" in rows["embeddings"][1] and "Qdrant Edge" in rows["store"][1]
    assert rows["prompts"][1] == "built-in (brain_server/prompts)"
    embedded = check(tmp_path)[1]
    assert embedded["LLM endpoint"] == ("OK", "embedded SmolLM2-135M-Instruct (starts with serve)")
    assert embedded["LLM context"][0] == "OK" and "4096 tokens" in embedded["LLM context"][1]


def test_check_reports_the_purposes_a_probe_run_fell_back_in(tmp_path: Path) -> None:
    """Every react answer garbage (the probe's own completion is never faulted): check's probe run
    names react, 2 of 2, and no other purpose."""
    with FakeOpenAI() as fake:
        fake.queue(*[{"content": "garbage"}] * 10, purpose="react")
        status, rows = check(tmp_path, llm_base_url=fake.base_url, llm_model="fake-model", llm_max_attempts=1)
        assert len(fake.chat_requests("react")) == 2
    verdict, line = rows["LLM answers"]
    assert status == 1 and verdict == "WARN", rows
    assert "fell back in react 2/2 (more than 10%)" in line


def test_check_says_when_the_longest_prompt_would_be_cut(tmp_path: Path) -> None:
    """An Ollama running the model with 4096 tokens: a 24,000-byte prompt (about 8,000 tokens)
    would be cut, which check says naming the purposes; with a 32k context all fits."""
    with FakeOpenAI(context_api="ollama", context_tokens=4096) as fake:
        status, rows = check(tmp_path, llm_base_url=fake.base_url, llm_model="fake-model")
    verdict, line = rows["LLM context"]
    assert status == 1 and verdict == "WARN", rows
    assert "4096 tokens (Ollama /api/ps context_length)" in line and "would be cut for" in line and "react" in line
    with FakeOpenAI(context_api="vllm", context_tokens=32_768) as fake:
        status, rows = check(tmp_path, llm_base_url=fake.base_url, llm_model="fake-model")
    assert status == 0 and rows["LLM context"][0] == "OK" and "fits with its answer" in rows["LLM context"][1]


WRONG_LLM = {
    # (the fake's options, the base URL's path, model, key) -> what the line must say
    "no /v1": ({"path_prefix": "/v1"}, "", "fake-model", "k", "answers 404: does it end in /v1?"),
    "wrong key": ({"api_key": "right-key"}, "/v1", "fake-model", SECRET, "NPC_BRAIN_LLM_API_KEY"),
    "unknown model": ({"models": ("llama3.1:latest", "qwen2.5:7b")}, "/v1", "gpt-4o-mini", "k",
                      "has no model 'gpt-4o-mini': set NPC_BRAIN_LLM_MODEL to one it serves: llama3.1:latest, "
                      "qwen2.5:7b"),
}


@pytest.mark.parametrize("case", WRONG_LLM)
def test_a_wrong_llm_setting_is_one_line_from_check_and_serve(tmp_path: Path, case: str, started: list) -> None:
    options, path, model, key, says = WRONG_LLM[case]
    with FakeOpenAI(**options) as fake:
        settings = {"llm_base_url": f"http://127.0.0.1:{fake.port}{path}", "llm_model": model, "llm_api_key": key}
        status, rows = check(tmp_path, **settings)
        assert status == 1 and rows["LLM endpoint"][0] == "FAIL" and says in rows["LLM endpoint"][1], rows
        assert rows["embeddings"][0] == "OK"
        line = serve_refuses(tmp_path, **settings)
        assert line.startswith("npc-brain: ") and says in line
        assert SECRET not in line and SECRET not in json.dumps(rows)
        if case == "unknown model":  # NPC_BRAIN_LLM_PROBE=false: serve starts anyway (its calls fall back)
            started.append(BrainProcess({**settings, "llm_probe": False, "data_dir": tmp_path / "b"}).start())



def test_a_web_server_for_an_endpoint_is_one_line_without_its_page(tmp_path: Path) -> None:
    """A URL that serves web pages, not an API (the wrong port of a machine): its HTML error page was
    the finding's text, over a dozen lines, after httpx's own line for every request."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)  # answers POST with a 501 page
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        done = npc_brain("check", env=env_for(tmp_path, llm_base_url=f"http://127.0.0.1:{server.server_port}/v1",
                                              llm_model="m"))
    finally:
        server.shutdown()
    [llm] = [line for line in done.stdout.splitlines() if line.startswith("LLM endpoint")]
    assert done.returncode == 1 and "FAIL" in llm and "takes no chat completions (HTTP 501, an HTML page" in llm, llm
    assert "OpenAI-compatible endpoint?" in llm and "<" not in done.stdout and "HTTP Request" not in done.stderr

def test_an_unreachable_llm_is_one_warning_and_serving_goes_on(tmp_path: Path, started: list,
                                                               refusing_port: int) -> None:
    url = f"http://127.0.0.1:{refusing_port}/v1"
    status, rows = check(tmp_path, llm_base_url=url)
    assert status == 1 and rows["LLM endpoint"][0] == "WARN" and "cannot be reached (Connection refused)" in \
        rows["LLM endpoint"][1]
    brain = BrainProcess({"llm_base_url": url, "data_dir": tmp_path / "brain"}).start()
    started.append(brain)
    [warning] = logged(brain, "llm_probe_failed")
    assert warning["level"] == "warning" and url in warning["note"] and "serving anyway" in warning["note"]
    clients = Clients(brain)
    assert clients.connect("RegisterWorld", world_json()).status_code == 200


def test_a_rejected_json_schema_steps_down_at_start_and_says_so_once(tmp_path: Path, started: list) -> None:
    with FakeOpenAI(response_formats=("json_object", "text")) as fake:
        status, rows = check(tmp_path, llm_base_url=fake.base_url, llm_model="fake-model")
        assert rows["LLM endpoint"][0] == "OK" and "response mode json_object (the endpoint rejects " \
            "response_format json_schema)" in rows["LLM endpoint"][1], rows
        # Without a schema to follow, the fake answers {}: check's probe run sees every purpose fall back.
        assert status == 1 and rows["LLM answers"][0] == "WARN" and "fell back in " in rows["LLM answers"][1]
        checked = len(fake.chat_requests())
        brain = BrainProcess({"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": tmp_path / "b",
                              "prepare_ahead_minutes": 0}).start()
        started.append(brain)
        [said] = logged(brain, "llm_response_format_rejected")
        assert (said["rejected"], said["now"], said["level"]) == ("json_schema", "json_object", "warning")
        clients = Clients(brain)
        for method, body in (("RegisterWorld", world_json()), ("SpawnNpc", spawn_json()), ("Decide", DECIDE)):
            assert clients.connect(method, body).status_code == 200
        asked = wait_until(  # the day is planned after the answer
            lambda: [r["body"].get("response_format", {}).get("type") for r in fake.chat_requests()[checked:]],
            what="a completion asked for the day's plan", poll_s=0.1)
        assert set(asked) == {"json_object"}  # never json_schema again
        assert [r["body"]["response_format"]["type"] for r in fake.chat_requests("probe")] == ["json_schema",
                                                                                              "json_object"] * 2


def test_an_ignored_json_schema_steps_down_too(fake_llm: FakeOpenAI) -> None:
    no_json = {"content": "Sure, I am here!"}  # 200, but no JSON: the format was ignored
    fake_llm.queue(*[no_json] * PROBE_ASKS, purpose="probe")
    found = asyncio.run(probe_llm(Endpoint("the LLM endpoint", "NPC_BRAIN_LLM", fake_llm.base_url, "fake-model"), "k"))
    assert (found.verdict, found.mode) == ("ok", "json_object") and "ignores response_format json_schema" in found.line
    fake_llm.queue(*[no_json] * 3 * PROBE_ASKS, purpose="probe")
    found = asyncio.run(probe_llm(Endpoint("the LLM endpoint", "NPC_BRAIN_LLM", fake_llm.base_url, "fake-model"), "k"))
    assert found.verdict == "warn" and "not with JSON in any response mode" in found.line


def test_one_malformed_answer_does_not_step_the_mode_down(fake_llm: FakeOpenAI) -> None:
    """blind36 answered the probe's json_schema ask malformed in one seed of ten (its declared faults),
    and the whole run asked for JSON with no schema: every answer then missed its keys. A mode is left
    only after PROBE_ASKS answers without its JSON, the asks after the first sampled."""
    fake_llm.queue({"content": '{"ok": tr'}, {"content": '{"ok": true}'}, purpose="probe")
    found = asyncio.run(probe_llm(Endpoint("the LLM endpoint", "NPC_BRAIN_LLM", fake_llm.base_url, "fake-model"), "k"))
    assert (found.verdict, found.mode) == ("ok", "json_schema") and "ignores" not in found.line
    asked = fake_llm.chat_requests("probe")
    assert [r["body"]["response_format"]["type"] for r in asked] == ["json_schema"] * 2
    assert [r["body"]["temperature"] for r in asked] == [0, PROBE_RESAMPLED]


def test_a_rejected_response_format_steps_down_at_run_time(tmp_path: Path) -> None:
    """No probe (an LLM built directly): the first 400 about response_format steps down, once per mode,
    with one warning each, and the call is asked again at once; the prompt carries the schema when
    its text does not show the answer's shape."""
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "importance.md").write_text("Rate how much this matters to $npc_name: $memory\n")
    variables = {"npc_name": "Isabella", "persona": "Isabella", "memory": "the cafe opened"}
    with FakeOpenAI(response_formats=("text",)) as fake, structlog.testing.capture_logs() as logs:
        fake.queue(*[{"json": {"importance": 6}}] * 2)

        async def twice() -> tuple[list[Importance], str]:
            llm = LLM(base_url=fake.base_url, model="fake-model", api_key="k", prompts=PromptLibrary(prompts))
            try:
                return [await llm.complete(IMPORTANCE, variables, npc_id="i", fallback=lambda: Importance(importance=1), work=WORK)
                        for _ in range(2)], llm.response_mode
            finally:
                await llm.close()

        answers, mode = asyncio.run(twice())
    assert [a.importance for a in answers] == [6, 6] and mode == "prompt"
    asked = [r["body"].get("response_format", {}).get("type") for r in fake.chat_requests()]
    assert asked == ["json_schema", "json_object", None, None]
    said = [(e["rejected"], e["now"]) for e in logs if e["event"] == "llm_response_format_rejected"]
    assert said == [("json_schema", "json_object"), ("json_object", "prompt")]
    assert not [e for e in logs if e["event"] == "llm_attempt_failed"]
    sent = fake.chat_requests()[-1]["body"]["messages"][-1]["content"]
    assert sent.startswith("Rate how much") and "JSON schema" in sent and '"importance"' in sent


WRONG_EMBEDDINGS = {
    "unknown model": ({"models": ("fake-embed",)}, "/v1", "k", "set NPC_BRAIN_EMBEDDINGS_MODEL to one it serves: fake-embed"),
    "wrong key": ({"api_key": "right-key"}, "/v1", SECRET, "NPC_BRAIN_EMBEDDINGS_API_KEY"),
    "no /v1": ({"path_prefix": "/v1"}, "", "k", "NPC_BRAIN_EMBEDDINGS_BASE_URL=http://127.0.0.1"),
}


@pytest.mark.parametrize("case", WRONG_EMBEDDINGS)
def test_a_wrong_embeddings_endpoint_is_one_line(tmp_path: Path, fake_llm: FakeOpenAI, case: str) -> None:
    options, path, key, says = WRONG_EMBEDDINGS[case]
    with FakeOpenAI(**options) as embeddings:
        settings = {"llm_base_url": fake_llm.base_url, "llm_model": "fake-model", "embeddings_api_key": key,
                    "embeddings_base_url": f"http://127.0.0.1:{embeddings.port}{path}"}
        status, rows = check(tmp_path, **settings)
        assert status == 1 and rows["embeddings"][0] == "FAIL" and says in rows["embeddings"][1], rows
        assert rows["LLM endpoint"][0] == "OK"
        line = serve_refuses(tmp_path, **settings)
        assert says in line and SECRET not in line


def test_a_qdrant_server_down_or_wrong_at_start_is_one_line(tmp_path: Path, fake_llm: FakeOpenAI,
                                                           refusing_port: int) -> None:
    down = f"http://127.0.0.1:{refusing_port}"
    says = f"the Qdrant server at NPC_BRAIN_QDRANT_URL={down} cannot be reached (Connection refused): is it running?"
    settings = {"llm_base_url": fake_llm.base_url, "llm_model": "fake-model", "qdrant_url": down}
    assert check(tmp_path, **settings)[1]["store"] == ("FAIL", says)
    assert serve_refuses(tmp_path, **settings) == f"npc-brain: {says}"
    not_qdrant = fake_llm.base_url.removesuffix("/v1")  # something else answers there
    assert "answers HTTP 404: is it a Qdrant server's REST URL" in \
        serve_refuses(tmp_path, **settings | {"qdrant_url": not_qdrant})


def test_a_store_that_goes_away_answers_unavailable_and_the_brain_recovers(tmp_path: Path, fake_llm: FakeOpenAI,
                                                                          started: list) -> None:
    from tools.qdrant_standin import QdrantStandIn  # imports qdrant-client: not at collection, in every worker

    folder = str(tmp_path / "qdrant")
    standin = QdrantStandIn(path=folder).start()
    port = standin.port
    try:
        status, rows = check(tmp_path, llm_base_url=fake_llm.base_url, llm_model="fake-model", qdrant_url=standin.url)
        assert status == 0 and "collection npc_memories (serve creates it)" in rows["store"][1], rows
        brain = BrainProcess({"llm_base_url": fake_llm.base_url, "llm_model": "fake-model", "qdrant_url": standin.url,
                              "prepare_ahead_minutes": 0, "data_dir": tmp_path / "b"}).start()
        started.append(brain)
        clients = Clients(brain)
        for method, body in (("RegisterWorld", world_json()), ("SpawnNpc", spawn_json()), ("Decide", DECIDE)):
            assert clients.connect(method, body).status_code == 200
        before = wait_until(lambda: len(m := memories(clients)) >= 2 and m,  # planned (and remembered) after the answer
                            what="two memories stored for the day's plan", poll_s=0.2)

        standin.stop()
        answer = clients.connect("ListMemories", {"npcId": "isabella"})
        assert answer.status_code == 503 and answer.json()["code"] == "unavailable"
        assert "memory store" in answer.json()["message"] and "try again" in answer.json()["message"]
        with pytest.raises(grpc.RpcError) as refused:
            clients.grpc("Decide", DECIDE | {"gameTime": "2026-02-13T09:10:00Z"})
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE and "memory store" in refused.value.details()

        standin = QdrantStandIn(port=port, path=folder).start()  # back, with the same data
        assert {m["id"] for m in before} <= {m["id"] for m in memories(clients)}  # nothing lost
        assert clients.connect("Decide", DECIDE | {"gameTime": "2026-02-13T09:20:00Z"}).status_code == 200
        clients.close()
    finally:
        standin.stop()


def test_ports_in_use_fail_the_check(tmp_path: Path) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        status, rows = check(tmp_path, http_port=port)
    assert status == 1 and rows["ports"][0] == "FAIL"
    assert f"HTTP 127.0.0.1:{port} (Address already in use)" in rows["ports"][1] and "NPC_BRAIN_HTTP_PORT" in \
        rows["ports"][1]


@pytest.mark.parametrize(("folder", "style", "says"), [
    ("missing", None, "is not a folder: point it at your prompt files, or unset it"),
    ("mine", '{"clock": "13h"}', "style.json: clock '13h' is none of '24h', '12h'"),
], ids=["no folder", "no style"])
def test_a_prompt_folder_that_serve_cannot_use_is_one_line_from_check_and_serve(
        tmp_path: Path, fake_llm: FakeOpenAI, folder: str, style: str | None, says: str) -> None:
    """NPC_BRAIN_PROMPTS_DIR naming no folder served the built-in prompts without a word; a style.json
    that is none would stop serve with a traceback. Both are a FAIL of check's and serve's one line."""
    prompts = tmp_path / folder
    if style is not None:
        prompts.mkdir()
        (prompts / "style.json").write_text(style)
    settings = {"llm_base_url": fake_llm.base_url, "llm_model": "fake-model", "prompts_dir": prompts}
    status, rows = check(tmp_path, **settings)
    assert status == 1 and rows["prompts"][0] == "FAIL" and says in rows["prompts"][1], rows
    assert says in serve_refuses(tmp_path, **settings)


def test_check_says_how_a_prompt_folder_reads(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    prompts = tmp_path / "mine"
    prompts.mkdir()
    (prompts / "style.json").write_text('{"clock": "12h", "date": "weekday, day month"}')
    (prompts / "react.md").write_text((BUILTIN_DIR / "react.md").read_text())
    status, rows = check(tmp_path, llm_base_url=fake_llm.base_url, llm_model="fake-model", prompts_dir=prompts)
    assert rows["prompts"] == ("OK", f"{prompts}: 1 of your own (react), the rest built-in; dates as "
                                     "'weekday, day month', clocks as '12h'"), rows
