"""LLM calls per conversation, for a pair and for groups of three and four, in and out of the
player's view: `python -m npc_lab.group_bench [--sizes 2 3 4] [--seeds 0 1 2] [--out DIR]`.

A real brain in lockstep against the stand-in model (which only copies what its prompts show).
For each size and view, a town of its own: that many residents at one cafe, the first whispered
a dated piece of news; once all have their day plans, the first notices the others, and the
conversation that follows is counted: the LLM calls of that one Decide by purpose (the reaction,
relationships, lines, memos, the one-call summary out of view, places for plan items), the lines
spoken, and how many of them then remember the news. Prints a table and writes
`group-conversations.json`.
"""

from __future__ import annotations

import argparse
from collections import Counter
import json
from pathlib import Path
import statistics
import tempfile
from typing import Any

import httpx

from npc_lab.sim.brain import BrainProcess
from npc_lab.standin_openai import StandInOpenAI
from npc_lab.tables import markdown_table

VIEWS = {"in view": "ATTENTION_IN_VIEW", "out of view": "ATTENTION_OUT_OF_VIEW"}
NAMES = ["Isabella Rodriguez", "Klaus Mueller", "Maria Lopez", "Eddy Lin"]
NEWS = "Isabella Rodriguez is hosting a Valentine's Day party at the cafe on February 14 from 5 pm to 7 pm"
DAY = "2026-02-13"


def _world(name: str) -> dict[str, Any]:
    return {"world": {"name": name, "width": 24, "height": 12, "sectors": [
        {"name": "cafe", "arenas": [{"name": "hall", "tiles": [{"x": x, "y": y} for x in range(1, 9) for y in range(1, 7)],
                                     "objects": [{"name": "counter", "tiles": [{"x": 2, "y": 2}]}]}]}]}}


class Town:
    """One size and view: its own world on the shared brain, spoken to over Connect."""

    def __init__(self, http: httpx.Client, size: int, view: str) -> None:
        self.http, self.attention = http, VIEWS[view]
        self.world = f"Bench {size} {view}"
        self.cafe = f"{self.world}:cafe:hall"
        self.ids = [f"{view.replace(' ', '_')}_{size}_{i}" for i in range(size)]
        self.names = dict(zip(self.ids, NAMES, strict=False))

    def call(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = self.http.post(f"/npc_brain.v1.BrainService/{method}", json=body)
        reply.raise_for_status()
        return dict(reply.json())

    def decide(self, npc_id: str, clock: str, *seen: str) -> dict[str, Any]:
        perceptions = [{"subject": who, "predicate": "is", "object": "chatting", "description": f"{who} is having coffee",
                        "address": self.cafe, "distance": 2} for who in seen]
        return self.call("Decide", {"npcId": npc_id, "gameTime": f"{DAY}T{clock}:00Z", "address": self.cafe,
                                    "perceptions": perceptions, "attention": self.attention})

    def meet(self) -> None:
        self.call("RegisterWorld", _world(self.world))
        for npc_id, name in self.names.items():
            self.call("SpawnNpc", {"worldName": self.world, "npcId": npc_id, "address": self.cafe, "persona": {
                "name": name, "age": 30, "traits": ["friendly"], "identity": f"{name} lives in town and likes the cafe.",
                "lifestyle": "goes to bed around 11pm, wakes up around 7am", "home": self.cafe,
                "knownAreas": [self.cafe]}})
            self.decide(npc_id, "09:00")
        self.call("Whisper", {"npcId": self.ids[0], "text": NEWS, "gameTime": f"{DAY}T09:05:00Z"})
        for npc_id in self.ids[1:]:
            self.decide(npc_id, "09:30")

    def knows(self) -> int:
        """How many remember a conversation that carried the news."""
        memories = [self.call("ListMemories", {"npcId": i, "kind": "MEMORY_KIND_CHAT"}).get("memories", [])
                    for i in self.ids]
        return sum(any("party" in m["description"].lower() for m in mine) for mine in memories)


def measure(size: int, view: str, model: StandInOpenAI, brain: BrainProcess) -> dict[str, Any]:
    with httpx.Client(base_url=brain.http_url, timeout=120) as http:
        town = Town(http, size, view)
        town.meet()
        before = len(model.chat_requests())
        action = town.decide(town.ids[0], "09:40", *list(town.names.values())[1:])["action"]
        asked = Counter(r["purpose"] for r in model.chat_requests()[before:])
        return {"size": size, "view": view, "calls": sum(asked.values()), "by_purpose": dict(asked),
                "lines": len(action.get("dialogue", [])), "talking": action.get("description", ""),
                "dialogue": [f"{d['speakerName']}: {d['text']}" for d in action.get("dialogue", [])],
                "knew": town.knows()}


def run(sizes: list[int], seeds: list[int]) -> list[dict[str, Any]]:
    results = []
    for seed in seeds:
        with StandInOpenAI(seed=seed) as model, tempfile.TemporaryDirectory() as data:
            settings = {"llm_base_url": model.base_url, "llm_model": "stand-in", "data_dir": data,
                        "background_thinking": False}
            with BrainProcess(settings, inherit_env=False) as brain:
                results += [measure(size, view, model, brain) | {"seed": seed} for size in sizes for view in VIEWS]
    return results


def summary(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for size in dict.fromkeys(r["size"] for r in results):
        for view in VIEWS:
            runs = [r for r in results if r["size"] == size and r["view"] == view]
            purposes = Counter[str]()
            for r in runs:
                purposes.update(r["by_purpose"])
            rows.append({"size": size, "view": view, "runs": len(runs),
                         "calls_mean": statistics.mean(r["calls"] for r in runs),
                         "calls": [r["calls"] for r in runs], "lines_mean": statistics.mean(r["lines"] for r in runs),
                         "knew": [r["knew"] for r in runs],
                         "by_purpose_mean": {p: n / len(runs) for p, n in sorted(purposes.items())}})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="the stand-in model's seeds")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args(argv)
    results = run(args.sizes, args.seeds)
    rows = summary(results)
    print(markdown_table(["people", "view", "calls (mean)", "calls per run", "lines (mean)", "knew the news",
                          "by purpose (mean)"],
                [[str(r["size"]), r["view"], f"{r['calls_mean']:.1f}", " ".join(map(str, r["calls"])),
                  f"{r['lines_mean']:.1f}", " ".join(f"{k}/{r['size']}" for k in r["knew"]),
                  ", ".join(f"{p} {n:g}" for p, n in r["by_purpose_mean"].items())] for r in rows]))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "group-conversations.json").write_text(json.dumps({"summary": rows, "runs": results}, indent=2))


if __name__ == "__main__":
    main()
