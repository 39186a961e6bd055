"""The headless world loop: a game clock in steps of `tick_s` game seconds (10 = the paper's
step), NPCs walking one tile per 10 game seconds, perception by vision radius, object states,
and the brain driven over real gRPC exactly as Godot drives it:

RegisterWorld once; SpawnNpc per resident; Whisper for the scenario's whispers at their times;
Decide when an NPC has no action, its action ended, it arrived where the action is, its
conversation partner just started talking to it, or `decide_every_min` game minutes passed (so
it perceives whoever came by). Decisions due in one tick run concurrently (at most `concurrency`
in flight, ordered by npc_id when 1, which makes a run reproducible); the clock waits for them.

The player's view (`in_view` = N): a player stands in the town and sees the N residents nearest
to them (straight-line tile distance, as a camera frames them; ties broken by npc_id); every
Decide says ATTENTION_IN_VIEW or ATTENTION_OUT_OF_VIEW, and a resident that just came into view
is asked at once, as a game asks again when an NPC enters the screen, so the brain can give it
its detail back. The player moves every game hour from the run's start to the next of the town's
sectors, in the order of their names (cycling), and stands on the sector's tile nearest the middle
of its arenas: the same places at the same hours in every run, whatever the seed, so runs differ
only in what the residents do. `in_view` None sends no attention (the brain treats it as in view).
With `thinking` = M as well, only the M nearest think (in view or out of view): the others are far,
a crowd (ATTENTION_CROWD).

A run folder holds config.json, actions.jsonl (every decision), moves.jsonl (every change of
arena), usage.json (GetUsage), memories/<npc_id>.json, interviews.json and stats.json.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
import json
import math
import os
from pathlib import Path
import sys
import time
from typing import Any, TextIO

from google.protobuf import json_format
import grpc

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from npc_lab.residents import TownLayout
from npc_lab.sim.brain import BrainProcess
from npc_lab.sim.data import Resident, Scenario
from npc_lab.sim.grid import SECONDS_PER_TILE, Grid, Tile, layout

MAX_EVENTS = 32
# The reflection threshold of a started brain. The paper's 150 was set for a world perceived every
# 10 s (its released run: about 30 events an hour, 6 reflections on the first day; the paper says
# 2-3 a day); this world is perceived at each Decide, about 5 events an hour, so at 150 its residents
# reflect about once a day, the first after a day and a half. At 50 they reflect 2-3 times a day.
REFLECTION_THRESHOLD = 50


@dataclass
class SimConfig:
    out: Path
    brain: str = ""  # gRPC target of a running brain; empty = start one
    brain_settings: dict[str, Any] = field(default_factory=dict)  # NPC_BRAIN_* for a started brain
    concurrency: int = 8
    tick_s: int = 10
    decide_every_min: int = 10
    duration: timedelta | None = None  # overrides the scenario's
    progress_s: float = 10.0
    interview: bool = True
    # Ask every resident "Do you know <name>?" about every other, at the start and at the end (the
    # paper's relationship density); n x (n - 1) Interviews each time.
    ask_density: bool = True
    rpc_timeout_s: float = 600.0
    in_view: int | None = None  # the player sees the N nearest residents; None: attention not sent
    thinking: int | None = None  # with in_view: the M nearest think, the others are a crowd; None: all think

    def __post_init__(self) -> None:
        if not self.brain and "NPC_BRAIN_REFLECTION_THRESHOLD" not in os.environ:
            self.brain_settings.setdefault("reflection_threshold", REFLECTION_THRESHOLD)


@dataclass
class Walker:
    resident: Resident
    tile: Tile
    action: dict[str, Any] | None = None
    action_end: datetime | None = None
    path: list[Tile] = field(default_factory=list)
    arrived: bool = False
    last_decide: datetime | None = None
    poke: bool = False  # a partner started a conversation with it
    arena: str = ""
    in_view: bool = True  # the player can see it (always, without a player's view)
    entered_view: bool = False  # it came into view at this tick
    crowd: bool = False  # far from the player (SimConfig.thinking)


class Town:
    """What Godot keeps of the world while the brain thinks: where each NPC stands and walks, what
    it does, the objects' states; perception, Decide requests and answers, walking, as Godot does
    them. The lockstep sim (`Sim`) and the real-time benchmark (`npc_lab/realtime.py`) drive it."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.walkers: dict[str, Walker] = {}
        self.object_states: dict[str, tuple[str, str]] = {}  # object address -> (state, npc_id)

    def settle(self, r: Resident, world_name: str) -> dict[str, Any]:
        """`r` at home, on a tile nobody else stands on: its walker, and its SpawnNpc request (proto3 JSON)."""
        tile = self.grid.destination(r.persona["home"], r.npc_id, taken=self.taken()) or (0, 0)
        self.walkers[r.npc_id] = Walker(r, tile, arena=self.grid.tile_arena.get(tile, ""))
        return {"worldName": world_name, "npcId": r.npc_id, "persona": r.persona, "address": r.persona["home"],
                "tile": {"x": tile[0], "y": tile[1]}, "perception": r.perception}

    def decide_request(self, w: Walker, now: datetime) -> pb.DecideRequest:
        request = pb.DecideRequest(npc_id=w.resident.npc_id, address=w.arena,
                                   tile=pb.Tile(x=w.tile[0], y=w.tile[1]))
        request.game_time.FromDatetime(now)
        for event in self.perceive(w)[:MAX_EVENTS]:
            request.perceptions.add(**event)
        return request

    def perceive(self, w: Walker) -> list[dict[str, Any]]:
        """Other NPCs' current actions and object states within the vision radius, in the same
        arena (or both outdoors), nearest first."""
        events = []
        for other in self.walkers.values():
            if other is w or other.action is None or other.arena != w.arena:
                continue
            d = math.dist(w.tile, other.tile)
            if d <= w.resident.vision_radius:
                a = other.action
                events.append({"subject": other.resident.name, "predicate": a.get("event_predicate") or "is",
                               "object": a.get("event_object", ""), "description": a.get("description", ""),
                               "address": a.get("address", ""), "distance": d})
        for address, (state, _) in self.object_states.items():
            tiles = self.grid.object_tiles.get(address)
            if not state or not tiles or self.grid.tile_arena.get(tiles[0]) != w.arena:
                continue
            d = min(math.dist(w.tile, t) for t in tiles)
            if d <= w.resident.vision_radius:
                name = address.rsplit(":", 1)[-1]
                events.append({"subject": address, "predicate": "is", "object": state,
                               "description": f"{name} is {state}", "address": address, "distance": d})
        return sorted(events, key=lambda e: e["distance"])

    def adopt(self, w: Walker, action: dict[str, Any], now: datetime, at_least: timedelta) -> bool:
        """A Decide's answer (its action, proto field names) for `w` at `now`: object states, a
        partner poked, the path to the action's address (new only when the action changed; in a
        conversation, the second to hear walks up to the first: `walk_up`). The action lasts at
        least `at_least`. True when the action changed."""
        npc_id = w.resident.npc_id
        w.poke = w.arrived = False
        w.last_decide = now
        changed = w.action is None or action.get("description") != w.action.get("description") \
            or action.get("address") != w.action.get("address")
        w.action = action
        start = datetime.fromisoformat(action["start_time"].replace("Z", "+00:00")) if action.get("start_time") else now
        w.action_end = max(start + timedelta(minutes=int(action.get("duration_minutes", 0) or 0)), now + at_least)
        for address in [a for a, (_, owner) in self.object_states.items() if owner == npc_id]:
            del self.object_states[address]
        for change in action.get("object_states", []):
            self.object_states[change["address"]] = (change.get("state", ""), npc_id)
        partner = action.get("chatting_with", "")
        if partner in self.walkers and changed:
            other = self.walkers[partner]
            if not (other.action and other.action.get("chatting_with") == npc_id):
                other.poke = True
        if partner in self.walkers:
            w.path = self.walk_up(w, self.walkers[partner]) if changed else w.path
            return changed
        goal = self.grid.destination(action.get("address", ""), npc_id, w.tile, self.taken(w))
        w.path = self.grid.path(w.tile, goal) if goal and changed else (w.path if not changed else [])
        return changed

    def walk_up(self, w: Walker, partner: Walker) -> list[Tile]:
        """The way to the tile beside `partner` when it heard of their conversation first and stands
        there (as the addon's `NpcBrainAgent._join_chat` walks), else none: `w` talks where it stands."""
        if not partner.action or partner.action.get("chatting_with") != w.resident.npc_id or partner.path:
            return []
        way = self.grid.path(w.tile, partner.tile)
        return way[:-1] if len(way) > 1 else []

    def taken(self, me: Walker | None = None) -> set[Tile]:
        """Where the other NPCs stand and are going, as Godot's Npc.go_to counts them."""
        others = [w for w in self.walkers.values() if w is not me]
        return {w.tile for w in others} | {w.path[-1] for w in others if w.path}

    def step(self, w: Walker, tiles: int) -> bool:
        """`w` walks up to `tiles` tiles of its path; True when it entered another arena."""
        w.path, moved = w.path[tiles:], w.path[:tiles]
        if not moved:
            return False
        w.tile = moved[-1]
        arena = self.grid.tile_arena.get(w.tile, "")
        entered, w.arena = arena != w.arena, arena
        if not w.path:
            w.arrived = True
        return entered


class Sim(Town):
    def __init__(self, town: TownLayout, residents: list[Resident], scenario: Scenario, config: SimConfig,
                 grid: Grid | None = None) -> None:
        super().__init__(grid or layout(town))
        self.town, self.residents, self.scenario, self.config = town, residents, scenario, config
        self.decides = 0
        self.stub: brain_pb2_grpc.BrainServiceStub | None = None
        self._actions: TextIO | None = None
        self._moves: TextIO | None = None
        self._last_progress = 0.0
        self.player_spots = player_spots(self.grid)

    # --- the player's view ---------------------------------------------------------------

    def player_spot(self, now: datetime) -> tuple[str, Tile]:
        """The sector the player stands in at `now`, and the tile: the next sector every game hour."""
        hour = int((now - self.scenario.start).total_seconds() // 3600)
        return self.player_spots[hour % len(self.player_spots)]

    def look(self, now: datetime) -> set[str]:
        """The residents the player sees at `now` (the `in_view` nearest to the player's tile);
        each walker's `in_view`, and `entered_view` for those not seen at the last look."""
        seen = near = set(self.walkers)
        if self.config.in_view is not None:
            _, spot = self.player_spot(now)
            ranked = sorted(seen, key=lambda npc_id: (math.dist(spot, self.walkers[npc_id].tile), npc_id))
            seen = set(ranked[:self.config.in_view])
            near = set(ranked if self.config.thinking is None else ranked[:self.config.thinking])
        for npc_id, w in self.walkers.items():
            w.entered_view = npc_id in seen and not w.in_view
            w.in_view = npc_id in seen
            w.crowd = npc_id not in near
        return seen

    # --- RPCs ----------------------------------------------------------------------------

    async def call(self, method: str, body: dict[str, Any] | Any) -> dict[str, Any]:
        assert self.stub is not None
        request = body if not isinstance(body, dict) else json_format.ParseDict(body, getattr(pb, f"{method}Request")())
        reply = await getattr(self.stub, method)(request, timeout=self.config.rpc_timeout_s)
        return json_format.MessageToDict(reply, preserving_proto_field_name=True)

    # --- the run -------------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        out = self.config.out
        out.mkdir(parents=True, exist_ok=True)
        (out / "memories").mkdir(exist_ok=True)
        brain: BrainProcess | None = None
        target = self.config.brain
        if not target:
            # The sim is one trusted client deciding for every NPC at once: no per-client rate limit.
            settings = {"data_dir": out / "brain-data", "rate_limit_per_s": 0, **self.config.brain_settings}
            brain = await asyncio.to_thread(BrainProcess(settings, out / "brain.log").start)
            target = brain.grpc_target
        try:
            async with grpc.aio.insecure_channel(target) as channel:
                self.stub = brain_pb2_grpc.BrainServiceStub(channel)
                return await self._run(out)
        finally:
            if brain:
                await asyncio.to_thread(brain.stop)

    async def _run(self, out: Path) -> dict[str, Any]:
        sc = self.scenario
        start = sc.start
        end = start + (self.config.duration or sc.duration)
        (out / "config.json").write_text(json.dumps({
            "town": self.town.name, "residents": [r.npc_id for r in self.residents], "scenario": sc.raw or sc.name,
            "scenario_name": sc.name, "start": start.isoformat(), "end": end.isoformat(),
            "sim": {k: str(v) for k, v in asdict(self.config).items() if k != "brain_settings"},
            "brain_settings": {k: str(v) for k, v in self.config.brain_settings.items() if "key" not in k.lower()},
            "names": {r.npc_id: r.name for r in self.residents},
            "identities": {r.npc_id: r.persona.get("identity", "") for r in self.residents},
            "measure": {"question": sc.question, "topic": sc.topic, "keywords": sc.keywords, "host": sc.host,
                        "place": sc.event_address, "invited": sc.invited,
                        "window": [t.isoformat() for t in (sc.event_start, sc.event_end) if t]},
            "grid": {"width": self.grid.width, "height": self.grid.height, "layout": "godot_project/data/town_layout.json"},
        }, indent=2, default=str))
        await self.call("RegisterWorld", self.grid.world_message(self.town))
        for r in self.residents:
            await self.call("SpawnNpc", self.settle(r, self.town.name))
        asked: list[dict[str, Any]] = []
        if self.config.interview and self.config.ask_density:
            asked += await self.ask_who_knows_whom(start, "start")
        pending = sorted(sc.whispers, key=lambda w: w.at)
        wall0 = time.perf_counter()
        self._actions = (out / "actions.jsonl").open("w")
        self._moves = (out / "moves.jsonl").open("w")
        now = start
        tick = timedelta(seconds=self.config.tick_s)
        try:
            for w in self.walkers.values():
                self._log_move(w, now)
            while now < end:
                while pending and pending[0].at <= now:
                    w = pending.pop(0)
                    if w.npc_id in self.walkers:
                        await self.call("Whisper", {"npcId": w.npc_id, "text": w.text, "gameTime": _ts(now)})
                self.look(now)
                await self._decide_due(now)
                self._walk(now + tick)
                now += tick
                await self._progress(now, start, end, wall0)
        finally:
            self._actions.close()
            self._moves.close()
        wall = time.perf_counter() - wall0
        usage = await self.call("GetUsage", {})
        (out / "usage.json").write_text(json.dumps(usage, indent=1))
        for npc_id in self.walkers:
            memories = await self.call("ListMemories", {"npcId": npc_id, "limit": 1000})
            (out / "memories" / f"{npc_id}.json").write_text(json.dumps(memories, indent=1, ensure_ascii=False))
        if self.config.interview:
            if sc.question:
                asked += await self.interview_all(end)
            if self.config.ask_density:
                asked += await self.ask_who_knows_whom(end, "end")
            (out / "interviews.json").write_text(json.dumps(asked, indent=1, ensure_ascii=False))
        calls = sum(int(c.get("calls", 0)) for c in usage.get("counters", []))
        tokens = sum(int(c.get("prompt_tokens", 0)) + int(c.get("completion_tokens", 0))
                     for c in usage.get("counters", []))
        stats = {"game_seconds": (end - start).total_seconds(), "wall_seconds": wall, "decides": self.decides,
                 "llm_calls": calls, "tokens": tokens, "npcs": len(self.walkers),
                 "game_seconds_per_wall_second": (end - start).total_seconds() / wall if wall else 0.0}
        (out / "stats.json").write_text(json.dumps(stats, indent=1))
        return stats

    async def interview_all(self, when: datetime, path: Path | None = None) -> list[dict[str, Any]]:
        """Every resident asked the scenario's question (`asks: news`), as an observer: nothing is remembered."""
        answers = await self._ask([(n, self.scenario.question, {"asks": "news", "when": "end"})
                                   for n in sorted(self.walkers)], when)
        if path:
            path.write_text(json.dumps(answers, indent=1, ensure_ascii=False))
        return answers

    async def ask_who_knows_whom(self, when: datetime, label: str) -> list[dict[str, Any]]:
        """Every resident asked about every other, as the paper did: "Do you know <name>?"
        (`asks: knows`, `about`: the other's id; `when`: start or end of the run)."""
        names = {n: w.resident.name for n, w in self.walkers.items()}
        return await self._ask([(a, know_question(names[b]), {"asks": "knows", "about": b, "when": label})
                                for a in sorted(names) for b in sorted(names) if b != a], when)

    async def _ask(self, questions: list[tuple[str, str, dict[str, str]]], when: datetime) -> list[dict[str, Any]]:
        slots = asyncio.Semaphore(self.config.concurrency)

        async def one(npc_id: str, question: str, about: dict[str, str]) -> dict[str, Any]:
            async with slots:
                reply = await self.call("Interview", {"npcId": npc_id, "question": question, "gameTime": _ts(when),
                                                      "remember": False})
            return {"npc_id": npc_id, "question": question, "answer": reply.get("answer", ""),
                    "game_time": when.isoformat(), "trace_id": reply.get("trace_id", ""), **about}

        return list(await asyncio.gather(*(one(*q) for q in questions)))

    # --- one tick ------------------------------------------------------------------------

    def _due(self, w: Walker, now: datetime) -> bool:
        if w.action is None or w.poke or w.arrived or w.entered_view:
            return True
        if w.action_end is not None and now >= w.action_end:
            return True
        every = timedelta(minutes=self.config.decide_every_min)
        return w.last_decide is None or now - w.last_decide >= every

    async def _decide_due(self, now: datetime) -> None:
        due = [w for _, w in sorted(self.walkers.items()) if self._due(w, now)]
        if not due:
            return
        requests = [(w, self.decide_request(w, now)) for w in due]  # one snapshot for the whole tick
        if self.config.in_view is not None:
            for w, request in requests:
                request.attention = pb.ATTENTION_IN_VIEW if w.in_view else \
                    pb.ATTENTION_CROWD if w.crowd else pb.ATTENTION_OUT_OF_VIEW
        if self.config.concurrency <= 1:
            for w, request in requests:
                await self._decide(w, request, now)
            return
        slots = asyncio.Semaphore(self.config.concurrency)

        async def limited(w: Walker, request: pb.DecideRequest) -> None:
            async with slots:
                await self._decide(w, request, now)

        await asyncio.gather(*(limited(w, r) for w, r in requests))

    async def _decide(self, w: Walker, request: pb.DecideRequest, now: datetime) -> None:
        reply = await self.call("Decide", request)
        self.decides += 1
        action = reply.get("action", {})
        self.adopt(w, action, now, timedelta(seconds=self.config.tick_s))
        assert self._actions is not None
        self._actions.write(json.dumps({"npc_id": w.resident.npc_id, "game_time": now.isoformat(),
                                        "tile": list(w.tile), "arena": w.arena,
                                        "perceived": len(request.perceptions),
                                        "in_view": request.attention in (pb.ATTENTION_UNSPECIFIED, pb.ATTENTION_IN_VIEW),
                                        "crowd": request.attention == pb.ATTENTION_CROWD,
                                        "trace_id": reply.get("trace_id", ""), **action},
                                       ensure_ascii=False) + "\n")

    def _walk(self, until: datetime) -> None:
        steps = max(1, self.config.tick_s // SECONDS_PER_TILE)
        for w in self.walkers.values():
            if self.step(w, steps):
                self._log_move(w, until)

    def _log_move(self, w: Walker, when: datetime) -> None:
        assert self._moves is not None
        self._moves.write(json.dumps({"npc_id": w.resident.npc_id, "game_time": when.isoformat(),
                                      "arena": w.arena, "tile": list(w.tile)}) + "\n")

    async def _progress(self, now: datetime, start: datetime, end: datetime, wall0: float) -> None:
        wall = time.perf_counter() - wall0
        if self.config.progress_s <= 0 or (wall - self._last_progress < self.config.progress_s and now < end):
            return
        self._last_progress = wall
        usage = await self.call("GetUsage", {})
        calls = sum(int(c.get("calls", 0)) for c in usage.get("counters", []))
        tokens = sum(int(c.get("prompt_tokens", 0)) + int(c.get("completion_tokens", 0))
                     for c in usage.get("counters", []))
        done = (now - start) / (end - start)
        print(f"sim {now:%Y-%m-%d %H:%M} {done:4.0%} | decides {self.decides} | LLM calls {calls} | "
              f"tokens {tokens:,} | {(now - start).total_seconds() / max(wall, 1e-9):.0f} game-s/wall-s",
              file=sys.stderr, flush=True)


def player_spots(grid: Grid) -> list[tuple[str, Tile]]:
    """Where the player stands, hour after hour: each sector (by name) and its floor tile nearest
    the middle of its arenas' tiles."""
    sectors: dict[str, list[Tile]] = {}
    for arena, tiles in grid.arena_tiles.items():
        sectors.setdefault(arena.rsplit(":", 1)[0], []).extend(tiles)
    spots = []
    for sector, tiles in sorted(sectors.items()):
        if tiles:
            middle = (sum(t[0] for t in tiles) / len(tiles), sum(t[1] for t in tiles) / len(tiles))
            spots.append((sector, min(tiles, key=lambda t: (math.dist(t, middle), t))))
    return spots or [("", (0, 0))]


def know_question(name: str) -> str:
    """The paper's question for relationship density."""
    return f"Do you know {name}?"


def _ts(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")
