"""`npc-lab bench realtime`: the brain under a game that runs in real time.

The Ville's residents live on a game clock running 60 game seconds per wall second (not lockstep),
each in its own loop as Godot's NpcBrainAgent drives it
(`godot_project/addons/npc_brain/runtime/npc_brain_agent.gd`): Decide with what it sees (the
sim's `Town.perceive`: other NPCs' actions within its vision radius, in its arena, and object
states), walk to the answered address over the town's grid, a tile per SECONDS_PER_TILE
game seconds, and ask again at askAgainAt (the action's end without it) on the game clock; the
first call comes after the NPC's own share of a second (NpcBrainAgent.start_spread_s). While the
brain is still thinking about it (a provisional action, or `thinking`) the NPC asks again on time
even on its way, at most every 0.5 wall seconds; otherwise it finishes its walk first. Half of
the NPCs call over gRPC, half over Connect JSON with a fresh connection per request (as Godot's
HTTPRequest); every call has Godot's 15 s deadline, and a failed one is asked again after 1 s,
doubling up to 8 s. A player talks to a random NPC every ~15 wall seconds (2-3 lines, over that
NPC's transport), each line with TalkStream (the line streamed as it is written) or, with
--talk unary, Talk. The brain is its own process (`BrainProcess`) thinking in the background with
LLM_MAX_CONCURRENCY 4, against the fake endpoint answering every completion after 2 s (--latency),
or streaming it: the first token after --latency, then --tokens-per-s (--streaming refuse: an
endpoint that does not stream); loopback only, bounded by --minutes (at most 60) and --npcs (at
most 25, the residents).

Reported: Decide latency per transport, timeouts and errors by status; the share of NPC-minutes
on provisional actions after the first game hour and overall; Talk latency to the first visible
words (the first streamed text; the whole line with Talk) and to the whole line; the scheduler's
queues per class (GetUsage at the end); LLM calls per NPC per awake game hour; conversations
started between NPCs.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
import gc
import json
import os
from pathlib import Path
import random
import re
import statistics
import struct
import sys
import tempfile
import time
from typing import Any
from urllib.parse import urlsplit
from urllib.request import urlopen
import zlib

from google.protobuf import json_format
from google.protobuf.message import Message
import grpc

from brain_server.llm.probe import PROBE_PURPOSE
from brain_server.model.npc import is_sleep
from brain_server.runtime.collector import settle_collector
from brain_server.runtime.vitals import percentile
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.sim.brain import BrainProcess, ChildProcess
from npc_lab.sim.data import load_all
from npc_lab.sim.grid import SECONDS_PER_TILE, layout
from npc_lab.sim.runner import Town, Walker
from npc_lab.tables import markdown_table

SERVICE = "/npc_brain.v1.BrainService"
# player_talk.py's note on a streamed line: ms from the line heard to the model asked, then to its first words
FIRST_WORDS_NOTE = re.compile(r"talk: the model asked (\d+) ms after the line was heard, its first words read (\d+) ms")
STREAMED = frozenset({"TalkStream"})  # server-streaming RPCs, whose last message carries the `line`
DEADLINE_S = 15.0  # Godot's NpcBrainLane.timeout_s (npc_brain/brain/timeout_s)
RETRY_S, MAX_RETRY_S = 1.0, 8.0  # NpcBrainAgent's back-off after a failed call
MIN_THINKING_INTERVAL_S = 0.5  # NpcBrainAgent.min_thinking_interval_s
START_SPREAD_S = 1.0  # NpcBrainAgent.start_spread_s: each NPC's first call after its own share of it
TIME_SCALE = 60.0
LLM_CONCURRENCY = 4
PLAYER = "the player"
PLAYER_LINES = ("Hello there! How is your day going?", "What are you working on at the moment?",
                "It was nice talking to you. See you around!")
MAX_MINUTES = 60.0
START_BURST_S = 10.0  # wall seconds of the start, when every NPC asks for the first time
WINDOW_S = 10.0  # wall seconds per window of the p99 over time (a steady tail or stalls)
TARGETS = {"decide_p99_ms": 20.0, "timeouts": 0, "errors": 0, "provisional_after_first_hour": 0.10,
           "talk_p99_ms": 2500.0, "talk_first_words_p99_ms": 400.0}
FIELDS = ("npcs", "wall_minutes", "time_scale", "llm_latency_s", "llm_tokens_per_s", "llm_streaming", "talk_rpc",
          "llm_concurrency", "deadline_s", "game_time",
          "decide", "decides", "timeouts", "errors", "errors_by_status", "thinking_answers", "provisional_share",
          "minutes_by_source", "talk", "queues", "llm", "conversations_started", "client_loop_lag", "client_gc",
          "brain", "targets")


class GameClock:
    """Game time running `scale` game seconds per wall second from `start`, shared by every NPC."""

    def __init__(self, scale: float, start: datetime) -> None:
        self.scale, self.start = scale, start
        self.began = time.monotonic()

    def now(self) -> datetime:
        return self.start + timedelta(seconds=(time.monotonic() - self.began) * self.scale)

    def wall_seconds_until(self, when: datetime) -> float:
        return (when - self.now()).total_seconds() / self.scale


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    at = {q: round(percentile(ordered, q / 100), 1) for q in (50, 90, 99)}
    return {"count": len(values), "p50_ms": at[50], "p90_ms": at[90], "p99_ms": at[99], "max_ms": round(ordered[-1], 1),
            "mean_ms": round(statistics.fmean(values), 1)}


def own_turn_s(npc_id: str, spread_s: float) -> float:
    """Wall seconds an NPC waits before its first call: its own share of `spread_s`, fixed by its id,
    as NpcBrainAgent waits its share of `start_spread_s`."""
    return spread_s * (zlib.crc32(npc_id.encode()) % 1000) / 1000


def next_ask(answer: pb.DecideResponse, now: datetime) -> datetime:
    """When to call Decide again, as Godot's NpcBrainDecision.next_ask: askAgainAt, or without it the
    action's end (at least a game minute away: the game's clock ticks each minute)."""
    if answer.HasField("ask_again_at"):
        return max(answer.ask_again_at.ToDatetime(UTC), now + timedelta(minutes=1))
    action = answer.action
    start = action.start_time.ToDatetime(UTC) if action.HasField("start_time") else now
    return max(start + timedelta(minutes=action.duration_minutes), now + timedelta(minutes=1))


@dataclass
class Reply:
    """One call's outcome: the response message, or the failure's status ('grpc UNAVAILABLE',
    'connect HTTP 429 resource_exhausted', 'connect timeout'...)."""

    status: str
    message: Any
    ms: float
    timed_out: bool = False
    first_ms: float | None = None  # a stream's first message with text (a unary call's: its answer)


class Caller:
    """The brain's RPCs over one transport as a game calls them: each call with a deadline (Godot's
    lane waits 15 s); over Connect, a plain HTTP/1.1 POST on a fresh connection per request, closed
    after the answer, as Godot's HTTPRequest sends it (a reused keep-alive connection races the
    server's idle close under load: a POST written as it closes is reset, and is not retried). A
    few lines of asyncio rather than an HTTP library, so that the client's own work, which a game
    engine does in C++, weighs little in the latencies measured here."""

    def __init__(self, transport: str, brain: BrainProcess, *, deadline_s: float = DEADLINE_S,
                 connections: int = 100) -> None:
        self.transport, self.deadline_s = transport, deadline_s
        self.channel = grpc.aio.insecure_channel(brain.grpc_target)
        self.stub = brain_pb2_grpc.BrainServiceStub(self.channel)
        url = urlsplit(brain.http_url)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 80
        self.connections = asyncio.Semaphore(connections)

    async def call(self, method: str, request: Message) -> Reply:
        sent = time.perf_counter()
        status, message, timed_out, first = "", None, False, None

        def seen(text: str) -> None:
            nonlocal first
            if text and first is None:
                first = (time.perf_counter() - sent) * 1000

        try:
            async with asyncio.timeout(self.deadline_s):
                if method in STREAMED:
                    message = await self._stream(method, request, seen)
                elif self.transport == "grpc":
                    message = await getattr(self.stub, method)(request, timeout=self.deadline_s)
                else:
                    code, body = await self._post(f"{SERVICE}/{method}", json_format.MessageToJson(request).encode())
                    if code == 200:
                        message = json_format.Parse(body, getattr(pb, f"{method}Response")(), ignore_unknown_fields=True)
                    else:
                        error = _connect_code(body)
                        status, timed_out = f"connect HTTP {code} {error}".strip(), error == "deadline_exceeded"
        except grpc.aio.AioRpcError as exc:
            status, timed_out = f"grpc {exc.code().name}", exc.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        except TimeoutError:
            status, timed_out = f"{self.transport} timeout", True
        except (OSError, ValueError) as exc:
            status = f"connect {type(exc).__name__}"
        ms = (time.perf_counter() - sent) * 1000
        return Reply(status, message, ms, timed_out, first if first is not None or status else ms)

    async def _stream(self, method: str, request: Message, seen: Callable[[str], None]) -> Message:
        """A server stream's last message; `seen` gets each message's text as it arrives."""
        if self.transport == "grpc":
            last = None
            async for last in getattr(self.stub, method)(request, timeout=self.deadline_s):
                seen(last.text)
            return last.line
        async with self.connections:
            reader, writer = await asyncio.open_connection(self.host, self.port)
            try:
                body = json_format.MessageToJson(request).encode()
                writer.write(b"POST %s/%s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/connect+json\r\n"
                             b"Connect-Timeout-Ms: %d\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                             % (SERVICE.encode(), method.encode(), self.host.encode(), self.port,
                                int(self.deadline_s * 1000), len(body) + 5, struct.pack(">BI", 0, len(body)) + body))
                return await _read_envelopes(reader, getattr(pb, f"{method}Response"), seen)
            finally:
                writer.close()

    async def _post(self, path: str, body: bytes) -> tuple[int, bytes]:
        """HTTP status and body of a POST on a connection of its own (asyncio sets TCP_NODELAY)."""
        async with self.connections:
            reader, writer = await asyncio.open_connection(self.host, self.port)
            try:
                writer.write(b"POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                             b"Connect-Timeout-Ms: %d\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                             % (path.encode(), self.host.encode(), self.port, int(self.deadline_s * 1000),
                                len(body), body))
                answer = await reader.read()  # the server closes the connection after its answer
            finally:
                writer.close()
        head, _, payload = answer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        if not lines[0].startswith(b"HTTP/1.1 "):
            raise ValueError(f"not an HTTP answer: {answer[:80]!r}")
        headers = {k.strip().lower(): v.strip().lower() for k, _, v in (line.partition(b":") for line in lines[1:])}
        if headers.get(b"transfer-encoding") == b"chunked":
            payload = _dechunked(payload)
        return int(lines[0].split()[1]), payload

    async def close(self) -> None:
        await self.channel.close()


async def _read_envelopes(reader: asyncio.StreamReader, message_type: type[Message],
                          seen: Callable[[str], None]) -> Message:
    """Connect's streaming answer read as it arrives (HTTP/1.1 chunked): each enveloped message's
    text to `seen`; the last message's `line`, or ValueError with the end of stream's error."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if status != 200:
        raise ValueError(f"connect HTTP {status}")
    buffer, last = b"", None
    while size := int((await reader.readline()).split(b";")[0], 16):
        buffer += (await reader.readexactly(size + 2))[:-2]
        while len(buffer) >= 5 and len(buffer) >= 5 + (length := struct.unpack(">I", buffer[1:5])[0]):
            flags, data, buffer = buffer[0], buffer[5:5 + length], buffer[5 + length:]
            if flags & 2:  # the end of the stream: {} or {"error": ...}
                error = json.loads(data).get("error")
                if error:
                    raise ValueError(f"connect {error.get('code', '')}")
                assert last is not None
                return last.line
            last = json_format.Parse(data, message_type(), ignore_unknown_fields=True)
            seen(last.text)
    raise ValueError("connect stream ended without its end message")


def _dechunked(payload: bytes) -> bytes:
    out = bytearray()
    while payload:
        size, _, rest = payload.partition(b"\r\n")
        n = int(size.split(b";")[0], 16)
        if n == 0:
            break
        out += rest[:n]
        payload = rest[n + 2:]
    return bytes(out)


def _connect_code(body: bytes) -> str:
    try:
        return str(json.loads(body).get("code", ""))
    except (ValueError, AttributeError):
        return ""


@dataclass
class Answer:
    """What an NPC was told to do from `at` on (until its next answer)."""

    at: datetime
    source: str  # plan, new_plan, fallback, provisional
    description: str
    partner: str = ""


@dataclass
class Calls:
    """Latencies of answered calls (and when the slow ones were answered, wall seconds into the
    run, to line them up with the brain's log), and failures by status. `together`: how many
    Decides (either transport) were in flight when each was sent, itself included: the tail of
    calls sent alone is stalls, that of calls sent in a burst also queueing behind the others."""

    slow_ms: float = float("inf")
    ms: list[float] = field(default_factory=list)
    at: list[float] = field(default_factory=list)  # wall seconds into the run, per answered call
    together: list[int] = field(default_factory=list)  # Decides in flight when it was sent, per answered call
    slow: list[tuple[float, float]] = field(default_factory=list)
    first_ms: list[float] = field(default_factory=list)  # to the first visible words, per answered call
    errors: Counter[str] = field(default_factory=Counter)
    timeouts: int = 0
    began: float = field(default_factory=time.monotonic)

    def add(self, reply: Reply, together: int = 1) -> None:
        if reply.timed_out:
            self.timeouts += 1
        elif reply.status:
            self.errors[reply.status] += 1
        else:
            self.ms.append(reply.ms)
            self.first_ms.append(reply.first_ms if reply.first_ms is not None else reply.ms)
            self.at.append(time.monotonic() - self.began)
            self.together.append(together)
            if reply.ms > self.slow_ms:
                self.slow.append((round(self.at[-1], 1), round(reply.ms, 1)))

    def report(self) -> dict[str, Any]:
        """Percentiles, failures, and the same after the start (all NPCs ask at once in the first
        seconds, as a game's town does when it starts)."""
        after = [ms for ms, at in zip(self.ms, self.at, strict=True) if at >= START_BURST_S]
        alone = [ms for ms, n in zip(self.ms, self.together, strict=True) if n == 1]
        by_window: dict[int, list[float]] = {}
        for ms, at in zip(self.ms, self.at, strict=True):
            by_window.setdefault(int(at // WINDOW_S), []).append(ms)
        return {**percentiles(self.ms), "first_words": percentiles(self.first_ms), "timeouts": self.timeouts, "errors": sum(self.errors.values()),
                "errors_by_status": dict(self.errors), "after_start": percentiles(after),
                "sent_alone": percentiles(alone),
                # None: no call answered in that window (a stall, not a fast one)
                "p99_by_window": [percentiles(by_window[w])["p99_ms"] if w in by_window else None
                                  for w in range(max(by_window, default=-1) + 1)],
                # every answered call, in order: runs pooled by `npc-lab bench spread`
                "samples_ms": [round(ms, 2) for ms in self.ms],
                **({"slow": self.slow} if self.slow_ms < float("inf") else {})}


class FakeProcess(ChildProcess):
    """The fake OpenAI endpoint (`python -m npc_lab.fake_openai`) in a process of its own, as a
    real endpoint is: its thread per completion (each asleep for `latency_s`, then building the
    answer) does not take the GIL from this client's callers. `with FakeProcess(2.0) as fake:
    fake.base_url`; stopped (and waited for) at the end."""

    READY = re.compile(r"server on (http://\S+)")
    WHAT = "the fake endpoint"
    ENDS_WITH_US = True

    def __init__(self, latency_s: float, log_path: Path | None = None, *, tokens_per_s: float = 0.0,
                 streaming: str = "sse") -> None:
        super().__init__([sys.executable, "-m", "npc_lab.fake_openai", "--port", "0", "--latency", str(latency_s),
                          "--tokens-per-s", str(tokens_per_s), "--streaming", streaming],
                         {**os.environ, "PYTHONUNBUFFERED": "1"}, log_path)
        self.base_url = ""

    def on_ready(self, match: re.Match[str]) -> None:
        self.base_url = match.group(1)

    def chat_requests(self) -> int:
        """Chat completions it was asked for (the brain's start-up probe aside)."""
        with urlopen(self.base_url.rsplit("/v1", 1)[0] + "/_fake/requests", timeout=60) as answer:
            asked = json.loads(answer.read())["requests"]
        return sum(1 for r in asked if r["path"].endswith("/chat/completions") and r["purpose"] != PROBE_PURPOSE)


class Collector:
    """This client's garbage collections while it runs, timed through `gc.callbacks`. Inside
    `with`, what was set up before (town, protobuf and gRPC code) is frozen out of the collector's
    sight and the collections' thresholds are the brain's, as the brain settles its own
    (`brain_server.runtime.collector.settle_collector`): a game's engine has no such pauses, so they should
    not read as the brain's latency. The pauses that remain are reported beside the loop lag."""

    def __init__(self, settle: bool = True) -> None:
        self.settle = settle
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._began = 0.0
        self._threshold = gc.get_threshold()

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses[info["generation"]].append((time.perf_counter() - self._began) * 1000)

    def __enter__(self) -> Collector:
        if self.settle:
            settle_collector()
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)
        if self.settle:
            gc.set_threshold(*self._threshold)
            gc.unfreeze()

    def report(self) -> dict[str, Any]:
        return {"settled": self.settle, "full": percentiles(self.pauses[2]),
                "young": percentiles(self.pauses[0] + self.pauses[1])}


class RealTime:
    """The town on a real-time game clock, its NPCs and a player calling one brain."""

    def __init__(self, town: Town, callers: dict[str, Caller], *, start: datetime, wall_s: float,
                 talk_every_s: float = 15.0, seed: int = 0, talk: str = "TalkStream") -> None:
        self.town, self.callers, self.talk = town, callers, talk
        self.start, self.wall_s, self.talk_every_s = start, wall_s, talk_every_s
        self.rng = random.Random(seed)
        ids = sorted(town.walkers)
        self.transport = {npc_id: ("grpc", "connect")[i % 2] for i, npc_id in enumerate(ids)}
        self.decides = {t: Calls(TARGETS["decide_p99_ms"]) for t in callers}
        self.talks = Calls()
        # A streamed line's first words, step by step (the brain's trace note): from the line heard
        # to the model asked (retrieval, its query's embedding, the prompt, a slot), from there to
        # the first words read (the model's first tokens), and the rest (the transports, both ways)
        self.first_words_steps: dict[str, list[float]] = {"asked_ms": [], "model_ms": [], "wire_ms": []}
        self.talk_conversations = 0
        self.thinking_answers = 0
        self.answers: dict[str, list[Answer]] = defaultdict(list)
        self.clock = GameClock(TIME_SCALE, start)
        self.loop_lag_ms: list[float] = []  # this client's own event loop, late by (a stall here reads as latency)
        self.in_flight = 0  # Decides sent and not yet answered
        self._end = 0.0

    def left(self) -> float:
        """Wall seconds left in the run."""
        return self._end - time.monotonic()

    async def pause(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, min(seconds, self.left())))

    async def run(self, progress: Any = None) -> datetime:
        self.clock = GameClock(TIME_SCALE, self.start)
        self._end = time.monotonic() + self.wall_s
        for calls in (*self.decides.values(), self.talks):
            calls.began = time.monotonic()
        tasks = [self.live(self.town.walkers[n], self.callers[t]) for n, t in self.transport.items()]
        await asyncio.gather(self.walk(), self.player(), self.watch_loop(), *tasks,
                             *([progress(self)] if progress else []))
        return self.clock.now()

    async def watch_loop(self) -> None:
        while self.left() > 0:
            asked = time.perf_counter()
            await asyncio.sleep(0.05)
            self.loop_lag_ms.append((time.perf_counter() - asked - 0.05) * 1000)

    async def live(self, w: Walker, caller: Caller) -> None:
        """One NPC's loop, as NpcBrainAgent runs it."""
        failures = 0
        await self.pause(own_turn_s(w.resident.npc_id, START_SPREAD_S))
        while self.left() > 0:
            now = self.clock.now()
            request = self.town.decide_request(w, now)
            self.in_flight += 1
            together = self.in_flight
            try:
                reply = await caller.call("Decide", request)
            finally:
                self.in_flight -= 1
            self.decides[caller.transport].add(reply, together)
            if reply.status:
                failures += 1
                await self.pause(min(RETRY_S * 2 ** (failures - 1), MAX_RETRY_S) * self.rng.uniform(0.8, 1.2))
                continue
            failures = 0
            answer: pb.DecideResponse = reply.message
            action = answer.action
            self.town.adopt(w, json_format.MessageToDict(action, preserving_proto_field_name=True), now,
                            timedelta(minutes=1))  # Godot's clock ticks each game minute
            source = pb.ActionSource.Name(action.source).removeprefix("ACTION_SOURCE_").lower()
            self.answers[w.resident.npc_id].append(Answer(now, source, action.description, action.chatting_with))
            tentative = answer.thinking or action.source == pb.ACTION_SOURCE_PROVISIONAL
            self.thinking_answers += answer.thinking
            wait = self.clock.wall_seconds_until(next_ask(answer, now))
            await self.pause(max(wait, MIN_THINKING_INTERVAL_S if tentative else 0.0))
            while not tentative and w.path and self.left() > 0:  # it finishes its walk first
                await self.pause(60 / TIME_SCALE)

    async def walk(self) -> None:
        """Everyone on a path steps a tile per SECONDS_PER_TILE of the game clock."""
        walked = self.clock.now()
        tile = timedelta(seconds=SECONDS_PER_TILE)
        while self.left() > 0:
            await self.pause(SECONDS_PER_TILE / TIME_SCALE)
            tiles = int((self.clock.now() - walked) / tile)
            walked += tiles * tile
            for w in self.town.walkers.values():
                self.town.step(w, tiles)

    async def player(self) -> None:
        """Every ~talk_every_s wall seconds the player talks to a random NPC: 2-3 lines, a few
        seconds apart, until the NPC ends the conversation."""
        ids = sorted(self.town.walkers)
        while self.left() > 0:
            await self.pause(self.talk_every_s * self.rng.uniform(0.7, 1.3))
            if self.left() <= 0:
                return
            npc_id = self.rng.choice(ids)
            caller = self.callers[self.transport[npc_id]]
            self.talk_conversations += 1
            for i, text in enumerate(PLAYER_LINES[-self.rng.choice((2, 3)):]):
                if i:
                    await asyncio.sleep(self.rng.uniform(1.0, 3.0))  # the player reads and types
                request = getattr(pb, f"{self.talk}Request")(npc_id=npc_id, speaker_name=PLAYER, text=text)
                request.game_time.FromDatetime(self.clock.now())
                reply = await caller.call(self.talk, request)
                self.talks.add(reply)
                if not reply.status and reply.first_ms is not None and self.talk == "TalkStream":
                    await self.time_first_words(reply.message.trace_id, reply.first_ms)
                if reply.status or reply.message.end_conversation:
                    break

    async def time_first_words(self, trace_id: str, first_ms: float) -> None:
        """The steps of one line's first words, from its trace (none where the line came whole)."""
        found = await self.callers["grpc"].stub.GetTrace(pb.GetTraceRequest(trace_id=trace_id), timeout=DEADLINE_S)
        for note in found.trace.notes:
            if m := FIRST_WORDS_NOTE.search(note):
                asked, model = float(m.group(1)), float(m.group(2))
                for key, ms in zip(self.first_words_steps, (asked, model, first_ms - asked - model), strict=True):
                    self.first_words_steps[key].append(ms)


# --- measuring the run ----------------------------------------------------------------------------


def segments(answers: dict[str, list[Answer]], start: datetime, end: datetime) -> Iterable[tuple[Answer, float]]:
    """Each answer with the game minutes (within start..end) it was the NPC's action."""
    for seq in answers.values():
        for a, after in zip(seq, [*seq[1:], None], strict=True):
            t0, t1 = max(a.at, start), min(after.at if after else end, end)
            if t1 > t0:
                yield a, (t1 - t0).total_seconds() / 60


def minutes_by_source(answers: dict[str, list[Answer]], start: datetime, end: datetime) -> dict[str, float]:
    out: Counter[str] = Counter()
    for a, minutes in segments(answers, start, end):
        out[a.source] += minutes
    return dict(out)


def share(minutes: dict[str, float], source: str) -> float | None:
    total = sum(minutes.values())
    return minutes.get(source, 0.0) / total if total else None


def awake_hours(answers: dict[str, list[Answer]], start: datetime, end: datetime) -> float:
    return sum(m for a, m in segments(answers, start, end) if not is_sleep(a.description)) / 60


def conversations(answers: dict[str, list[Answer]]) -> int:
    """Conversations between NPCs the game was told of: a pair's first chatting answer, either
    side (both are told, and the conversation is answered again when its lines land)."""
    starts: dict[tuple[str, ...], list[datetime]] = defaultdict(list)
    for npc_id, seq in answers.items():
        before = ""
        for a in seq:
            if a.partner and a.partner != before:
                starts[tuple(sorted((npc_id, a.partner)))].append(a.at)
            before = a.partner
    count = 0
    for times in starts.values():
        first: datetime | None = None
        for t in sorted(times):
            if first is None or t - first > timedelta(hours=1):
                count, first = count + 1, t
    return count


def llm_usage(usage: dict[str, Any], awake: float) -> dict[str, Any]:
    by_purpose: Counter[str] = Counter()
    tokens = 0
    for c in usage.get("counters", []):
        by_purpose[c["purpose"]] += int(c.get("calls", 0))
        tokens += int(c.get("prompt_tokens", 0)) + int(c.get("completion_tokens", 0))
    calls = sum(by_purpose.values())
    return {"calls": calls, "tokens": tokens, "awake_npc_hours": round(awake, 2),
            "calls_per_npc_awake_hour": round(calls / awake, 2) if awake else None,
            "by_purpose": dict(by_purpose.most_common())}


def queues(usage: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """GetUsage's queues (proto3 JSON: 64-bit counts come as strings) by class, as numbers."""
    counts, waits = ("waiting", "running", "served", "dropped_stale", "dropped_full"), ("wait_p50_ms", "wait_p99_ms")
    return {q["priority"]: {**{k: int(q.get(k, 0)) for k in counts}, **{k: round(float(q.get(k, 0)), 1) for k in waits}}
            for q in usage.get("queues", [])}


def vitals(usage: dict[str, Any]) -> dict[str, dict[str, float]]:
    """GetUsage's view from inside the brain: time in each RPC, event-loop lateness, full GC pauses."""
    def spread(d: dict[str, Any]) -> dict[str, float]:
        return {"count": int(d.get("count", 0)), **{k: round(float(d.get(k, 0)), 1) for k in ("p50_ms", "p99_ms", "max_ms")}}

    return {**{f"rpc {d['name']}": spread(d) for d in usage.get("rpcs", [])},
            "loop late": spread(usage.get("loop_late", {})), "gc pauses": spread(usage.get("gc_pauses", {}))}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the benchmark ---------------------------------------------------------------------------------


async def _drive(brain: BrainProcess, town: Town, args: argparse.Namespace, start: datetime) -> dict[str, Any]:
    callers = {t: Caller(t, brain) for t in ("grpc", "connect")}
    run = RealTime(town, callers, start=start, wall_s=args.minutes * 60, talk_every_s=args.talk_every,
                   talk=run_talk(args))
    assert brain.proc is not None
    cpu0, mine0, wall0 = cpu_seconds(brain.proc.pid), cpu_seconds(os.getpid()), time.monotonic()

    async def progress(rt: RealTime) -> None:
        while rt.left() > 0:
            await rt.pause(30)
            one = pb.GetUsageRequest(npc_id=min(town.walkers))  # the queues, and few counters to read
            usage = json_format.MessageToDict(await callers["grpc"].stub.GetUsage(one, timeout=30),
                                              preserving_proto_field_name=True)
            waiting = {q["priority"]: q.get("waiting", 0) for q in usage.get("queues", [])}
            now = rt.clock.now()
            tentative = sum(1 for seq in rt.answers.values() if seq and seq[-1].source == "provisional")
            ms = [m for c in rt.decides.values() for m in c.ms]
            print(f"realtime {now:%H:%M} | decides {len(ms)} p99 {percentiles(ms).get('p99_ms')} ms | "
                  f"provisional now {tentative}/{len(town.walkers)} | talk lines {len(rt.talks.ms)} | "
                  f"waiting {waiting}", file=sys.stderr, flush=True)

    collector = Collector(settle=getattr(args, "settle_gc", True))
    try:
        with collector:
            end = await run.run(progress)
        usage = json_format.MessageToDict(await callers["grpc"].stub.GetUsage(pb.GetUsageRequest(), timeout=60),
                                          preserving_proto_field_name=True)
    finally:
        for caller in callers.values():
            await caller.close()
    cpu, mine = cpu_seconds(brain.proc.pid) - cpu0, cpu_seconds(os.getpid()) - mine0
    wall = time.monotonic() - wall0
    first_hour = start + timedelta(hours=1)
    by_source = minutes_by_source(run.answers, start, end)
    after = minutes_by_source(run.answers, first_hour, end)
    decides = {t: c.report() for t, c in run.decides.items()}
    every = Calls()
    for c in run.decides.values():
        every.ms += c.ms
        every.at += c.at
        every.together += c.together
        every.errors += c.errors
        every.timeouts += c.timeouts
    decides["all"] = every.report()
    talk = run.talks.report()
    return {
        "npcs": len(town.walkers), "wall_minutes": round(wall / 60, 2), "time_scale": TIME_SCALE,
        "llm_latency_s": args.latency, "llm_tokens_per_s": args.tokens_per_s, "llm_streaming": args.streaming,
        "talk_rpc": run.talk, "llm_concurrency": LLM_CONCURRENCY, "deadline_s": DEADLINE_S,
        "game_time": [start.isoformat(), end.isoformat()],
        "decide": decides, "decides": every.report()["count"],
        "timeouts": every.timeouts + run.talks.timeouts,
        "errors": sum(every.errors.values()) + sum(run.talks.errors.values()),
        "errors_by_status": dict(every.errors + run.talks.errors),
        "thinking_answers": run.thinking_answers,
        "provisional_share": {"after_first_hour": share(after, "provisional"),
                              "overall": share(by_source, "provisional")},
        "minutes_by_source": {k: round(v, 1) for k, v in sorted(by_source.items())},
        "talk": {"conversations": run.talk_conversations, "lines": talk["count"], **talk,
                 "first_words_steps": {k: percentiles(v) for k, v in run.first_words_steps.items()}},
        "queues": queues(usage),
        "inside_brain": vitals(usage),
        "llm": llm_usage(usage, awake_hours(run.answers, start, end)),
        "conversations_started": conversations(run.answers),
        "client_loop_lag": percentiles(run.loop_lag_ms),
        "client_gc": {**collector.report(), "cpu_share": round(mine / wall, 2) if wall else None},
        "brain": {"cpu_s": round(cpu, 1), "cpu_share": round(cpu / wall, 2) if wall else None,
                  "rss_mib": round(brain.rss_bytes() / 2**20, 1)},
        "targets": TARGETS,
    }


def run_talk(args: argparse.Namespace) -> str:
    return "Talk" if args.talk == "unary" else "TalkStream"


def bench_realtime(args: argparse.Namespace) -> dict[str, Any]:
    args.minutes = min(args.minutes if args.minutes is not None else 10.0, MAX_MINUTES)
    args.latency = args.latency if args.latency is not None else 2.0
    args.talk_every = getattr(args, "talk_every", None) or 15.0
    args.tokens_per_s = getattr(args, "tokens_per_s", None) or 0.0
    args.streaming = getattr(args, "streaming", None) or "sse"
    args.talk = getattr(args, "talk", None) or "stream"
    town_layout, residents, scenario = load_all("valentines_party")
    residents = residents[:args.npcs] if args.npcs else residents
    town = Town(layout(town_layout))
    if getattr(args, "fake_in_process", False):  # as it was: the fake's threads share this client's GIL
        from npc_lab.fake_openai import FakeOpenAI

        endpoint: Any = FakeOpenAI(latency_s=args.latency, tokens_per_s=args.tokens_per_s, streaming=args.streaming)
    else:
        endpoint = FakeProcess(args.latency, args.out / "realtime-fake.log", tokens_per_s=args.tokens_per_s,
                               streaming=args.streaming)
    with endpoint as fake, tempfile.TemporaryDirectory() as data:
        settings = {"llm_base_url": fake.base_url, "llm_model": "fake-model", "data_dir": data, "host": "127.0.0.1",
                    "llm_max_concurrency": LLM_CONCURRENCY, "background_thinking": "true", "log_level": "warning"}
        with BrainProcess(settings, args.out / "realtime-brain.log") as brain:
            setup = grpc.insecure_channel(brain.grpc_target)
            stub = brain_pb2_grpc.BrainServiceStub(setup)
            stub.RegisterWorld(json_format.ParseDict(town.grid.world_message(town_layout), pb.RegisterWorldRequest()),
                               timeout=60)
            for r in residents:
                stub.SpawnNpc(json_format.ParseDict(town.settle(r, town_layout.name), pb.SpawnNpcRequest()), timeout=60)
            setup.close()
            print(f"realtime: {len(residents)} NPCs, {args.minutes:g} wall minutes at {TIME_SCALE:g}x, fake LLM "
                  f"{args.latency:g} s per completion" + (f" then {args.tokens_per_s:g} tokens/s" if args.tokens_per_s
                                                           else "") + f" (streaming: {args.streaming}), concurrency "
                  f"{LLM_CONCURRENCY}, the player on {run_talk(args)}", file=sys.stderr, flush=True)
            result = asyncio.run(_drive(brain, town, args, scenario.start))
        asked = fake.chat_requests()
        result["llm"]["fake_chat_requests"] = asked if isinstance(asked, int) else len(asked)
    print(table(result))
    return result


def _pauses(p: dict[str, Any]) -> str:
    return f"{p['count']} (max {_ms(p['max_ms'])} ms)" if p["count"] else "0"


def _ms(value: Any) -> str:
    return "-" if value is None else f"{value:,.1f}"


STEPS = {"asked_ms": "line heard -> model asked (retrieval, embedding, prompt, slot)",
         "model_ms": "model asked -> first words read", "wire_ms": "the rest: transports, both ways"}


def table(r: dict[str, Any]) -> str:
    rows = [[t, d.get("count", 0), _ms(d.get("p50_ms")), _ms(d.get("p99_ms")), _ms(d.get("max_ms")),
             _ms(d["after_start"].get("p99_ms")), f'{_ms(d["sent_alone"].get("p99_ms"))} ({d["sent_alone"]["count"]})',
             d["timeouts"], d["errors"]] for t, d in r["decide"].items()]
    out = [markdown_table(["Decide", "answered", "p50 ms", "p99 ms", "max ms", f"p99 after {START_BURST_S:g} s",
                   "p99 sent alone (count)", "timeouts", "errors"], rows)]
    t = r["talk"]
    w = t["first_words"]
    out.append(markdown_table(["Talk", "conversations", "lines answered", "first words p50 ms", "first words p99 ms",
                               "whole line p50 ms", "p99 ms", "max ms", "timeouts", "errors"],
                      [[r.get("talk_rpc", "Talk"), t["conversations"], t["count"], _ms(w.get("p50_ms")),
                        _ms(w.get("p99_ms")), _ms(t.get("p50_ms")), _ms(t.get("p99_ms")), _ms(t.get("max_ms")),
                        t["timeouts"], t["errors"]]]))
    if any(v["count"] for v in t.get("first_words_steps", {}).values()):
        out.append(markdown_table(["first words, step by step", "lines", "p50 ms", "p99 ms", "max ms"],
                                  [[STEPS[k], v["count"], _ms(v.get("p50_ms")), _ms(v.get("p99_ms")),
                                    _ms(v.get("max_ms"))] for k, v in t["first_words_steps"].items()]))
    out.append(markdown_table(["LLM queue", "served", "waiting", "wait p50 ms", "wait p99 ms", "dropped stale", "dropped full"],
                      [[p, q["served"], q["waiting"], _ms(q["wait_p50_ms"]), _ms(q["wait_p99_ms"]), q["dropped_stale"],
                        q["dropped_full"]] for p, q in r["queues"].items()]))
    out.append(markdown_table(["inside the brain", "count", "p50 ms", "p99 ms", "max ms"],
                      [[k, v["count"], _ms(v["p50_ms"]), _ms(v["p99_ms"]), _ms(v["max_ms"])]
                       for k, v in r["inside_brain"].items()]))
    s, llm = r["provisional_share"], r["llm"]

    def pct(x: float | None) -> str:
        return "-" if x is None else f"{x:.1%}"

    out.append(f"{r['npcs']} NPCs, {r['wall_minutes']:g} wall minutes, game time {r['game_time'][0][11:16]}-"
               f"{r['game_time'][1][11:16]}; provisional: {pct(s['after_first_hour'])} of NPC-minutes after the "
               f"first game hour, {pct(s['overall'])} overall; {r['thinking_answers']} answers while thinking")
    out.append(f"LLM calls {llm['calls']} ({llm['calls_per_npc_awake_hour']} per NPC per awake game hour, "
               f"{llm['awake_npc_hours']} awake NPC-hours); conversations started {r['conversations_started']}; "
               f"brain CPU {r['brain']['cpu_share']:.0%} of a core, RSS {r['brain']['rss_mib']:.0f} MiB; this client's "
               f"event loop late by p99 {_ms(r['client_loop_lag'].get('p99_ms'))} ms, "
               f"max {_ms(r['client_loop_lag'].get('max_ms'))}; its full GCs {_pauses(r['client_gc']['full'])}, "
               f"young {_pauses(r['client_gc']['young'])}, its CPU {r['client_gc']['cpu_share']:.0%} of a core")
    if r["errors_by_status"]:
        out.append(f"errors by status: {r['errors_by_status']}")
    out.append("targets: Decide p99 <= 20 ms on both transports, 0 timeouts, 0 errors, provisional after the first "
               "game hour <= 10%, Talk p99 <= 2.5 s (first words p99 <= 400 ms with a streaming endpoint)")
    return "\n\n".join(out)
