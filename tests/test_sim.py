"""The headless world: its map is the town as Godot lays it out, paths walk it a tile per 10 game seconds,
perception keeps to the vision radius and the arena, and a run drives a real brain over gRPC
into a run folder the measurements read."""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime, timedelta
import json
import math
from pathlib import Path
import re
from typing import Any

import pytest

from npc_brain.v1 import brain_pb2 as pb
from npc_lab.sim.data import DATA, load_all, topic_keywords
from npc_lab.sim.grid import layout
from npc_lab.sim.measure import report
from npc_lab.sim.runner import Sim, SimConfig, Walker
from tests.sim_town import config, small_town

HAVE_DATA = (DATA / "scenarios" / "valentines_party.json").is_file()
needs_data = pytest.mark.skipif(not HAVE_DATA, reason="godot_project/data not there yet")


@needs_data
def test_the_sims_tree_is_the_datas() -> None:
    from npc_lab import residents as loaders

    town, people, scenario = load_all("valentines_party")
    world = loaders.load_town()
    sent = layout(town).world_message(town)["world"]
    assert sent["name"] == world.name
    ids = {p.persona["name"]: p.npc_id for p in people}  # Godot lists residents by npc id
    assert [(s["name"], s["residents"], [(a["name"], [o["name"] for o in a["objects"]]) for a in s["arenas"]])
            for s in sent["sectors"]] == \
        [(s.name, [ids[r] for r in s.residents], [(a.name, [o.name for o in a.objects]) for a in s.arenas])
         for s in world.sectors]
    assert len(people) == 25 and scenario.keywords == ["valentine", "party"]
    assert scenario.event_address == "the Ville:Hobbs Cafe:cafe" and scenario.host == "isabella_rodriguez"


def test_the_grid_follows_godots_rules() -> None:
    """Walls block, steps are 4-neighbour, every arena and object is reachable from every home,
    and destinations resolve like Town.resolve_target."""
    town, residents, _ = small_town()
    grid = layout(town)
    assert (grid.width, grid.height) == (town.world.width, town.world.height) and grid.walls
    assert all(not grid.walkable(t) for t in town.walls)
    assert not grid.walkable((-1, 0)) and not grid.walkable((grid.width, 0))
    home = grid.destination(residents[0].persona["home"], residents[0].npc_id)
    assert home in grid.arena_tiles[residents[0].persona["home"]]
    assert home not in {t for a, tiles in grid.object_tiles.items() if a.startswith(residents[0].persona["home"])
                        for t in tiles}, "an arena's spot is a floor tile no object stands on"
    for address in [*grid.arena_tiles, *grid.object_tiles]:
        goal = grid.destination(address, "someone", home)
        path = grid.path(home, goal)
        assert path and path[-1] == goal, f"{address} is unreachable from {home}"
        steps = [home, *path]
        assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(steps, steps[1:], strict=False))
        assert all(grid.walkable(t) for t in path)
    bed = "the Ville:Isabella Rodriguez's apartment:main room:bed"
    assert grid.destination(bed, "x", home) in grid.object_tiles[bed]
    assert grid.destination(bed.removeprefix("the Ville:"), "x", home) in grid.object_tiles[bed]
    cafe = grid.arena_tiles["the Ville:Hobbs Cafe:cafe"]
    covered = {t for a, tiles in grid.object_tiles.items() if a.startswith("the Ville:Hobbs Cafe:cafe:") for t in tiles}
    left = [t for t in cafe if t not in covered]
    assert grid.destination("the Ville:Hobbs Cafe:cafe", "x", home, taken=left[1:]) == left[0], \
        "an arena's spot avoids the tiles other NPCs stand on or go to"
    sector = grid.destination("the Ville:Hobbs Cafe", "x", home)
    assert grid.tile_arena[sector] == grid.sector_arenas["the Ville:Hobbs Cafe"]
    assert grid.destination("the Ville:Nowhere:at all", "x", home) is None


def test_world_message_overrides_states() -> None:
    town, _, _ = small_town()
    grid = layout(town)
    counter = "the Ville:Hobbs Cafe:cafe:cafe counter"
    sent = grid.world_message(town, {counter: "busy"})["world"]
    states = {f"{sent['name']}:{s['name']}:{a['name']}:{o['name']}": o["state"]
              for s in sent["sectors"] for a in s["arenas"] for o in a["objects"]}
    assert states[counter] == "busy" and set(states.values()) == {"", "busy"}
    assert grid.world_message(town)["world"] == town.world.model_dump(mode="json")


def test_perception_keeps_to_the_radius_and_the_arena(tmp_path: Path) -> None:
    town, residents, scenario = small_town()
    sim = Sim(town, residents, scenario, SimConfig(out=tmp_path))
    cafe = sim.grid.arena_tiles["the Ville:Hobbs Cafe:cafe"]
    act = {"description": "Klaus Mueller is reading", "event_predicate": "is", "event_object": "reading",
           "address": "the Ville:Hobbs Cafe:cafe"}
    me, near, elsewhere = (Walker(r, cafe[0], arena="the Ville:Hobbs Cafe:cafe") for r in residents)
    near.action = act
    elsewhere.action, elsewhere.tile, elsewhere.arena = act, (0, 0), ""
    sim.walkers = {w.resident.npc_id: w for w in (me, near, elsewhere)}
    sim.object_states["the Ville:Hobbs Cafe:cafe:coffee machine"] = ("brewing coffee", "klaus_mueller")
    events = sim.perceive(me)
    assert [e["subject"] for e in events] == ["Klaus Mueller", "the Ville:Hobbs Cafe:cafe:coffee machine"]
    assert events[1]["description"] == "coffee machine is brewing coffee"
    near.tile = (cafe[0][0] + 20, cafe[0][1])  # same arena name, out of sight
    assert [e["subject"] for e in sim.perceive(me)] == ["the Ville:Hobbs Cafe:cafe:coffee machine"]


def test_of_two_who_talk_the_first_to_hear_stands_and_the_other_walks_up_beside_it(tmp_path: Path) -> None:
    """As the addon's NPCs do: two who start a conversation apart meet, the second to hear walking."""
    town, residents, scenario = small_town()
    sim = Sim(town, residents, scenario, SimConfig(out=tmp_path))
    cafe = sim.grid.arena_tiles["the Ville:Hobbs Cafe:cafe"]
    here, there = cafe[0], max(cafe, key=lambda t: math.dist(t, cafe[0]))
    isabella, klaus = Walker(residents[0], here, arena="the Ville:Hobbs Cafe:cafe"), Walker(
        residents[1], there, arena="the Ville:Hobbs Cafe:cafe")
    sim.walkers = {w.resident.npc_id: w for w in (isabella, klaus)}

    def chatting(me: Walker, other: Walker) -> dict:
        return {"description": f"{me.resident.name} is chatting with {other.resident.name}",
                "address": "the Ville:Hobbs Cafe:cafe", "chatting_with": other.resident.npc_id, "duration_minutes": 10}

    sim.adopt(klaus, chatting(klaus, isabella), scenario.start, timedelta(minutes=1))
    assert klaus.path == [] and isabella.poke, "the first to hear stands and tells the other"
    sim.adopt(isabella, chatting(isabella, klaus), scenario.start, timedelta(minutes=1))
    assert isabella.path and math.dist(isabella.path[-1], klaus.tile) == 1, "the other walks to the tile beside"
    sim.step(isabella, len(isabella.path))
    assert isabella.arrived and math.dist(isabella.tile, klaus.tile) == 1 and klaus.tile == there
    assert sim.walk_up(klaus, isabella) == [], "one beside its partner has no way left to walk"


def test_the_player_sees_the_nearest_and_moves_every_hour(tmp_path: Path) -> None:
    town, residents, scenario = small_town()
    sim = Sim(town, residents, scenario, SimConfig(out=tmp_path, in_view=2))
    sector, spot = sim.player_spot(scenario.start)
    assert sim.player_spot(scenario.start + timedelta(minutes=59)) == (sector, spot)
    assert sim.player_spot(scenario.start + timedelta(hours=1))[0] != sector
    assert sim.grid.tile_arena[spot].startswith(sector + ":")
    isabella, klaus, maria = residents
    sim.walkers = {"maria_lopez": Walker(maria, (spot[0] + 3, spot[1])),
                   "klaus_mueller": Walker(klaus, (spot[0] - 1, spot[1])),
                   "isabella_rodriguez": Walker(isabella, (spot[0], spot[1] + 1))}
    assert sim.look(scenario.start) == {"klaus_mueller", "isabella_rodriguez"}, "a tie goes to the first npc_id"
    assert not any(w.entered_view for w in sim.walkers.values())
    sim.walkers["maria_lopez"].tile = spot
    assert sim.look(scenario.start) == {"maria_lopez", "isabella_rodriguez"}
    assert [n for n, w in sim.walkers.items() if w.entered_view] == ["maria_lopez"]
    assert sim._due(sim.walkers["maria_lopez"], scenario.start), "coming into view asks for a Decide"
    sim.config.in_view, sim.config.thinking = 1, 2  # the nearest seen, the next one thinks, the last a crowd
    sim.look(scenario.start)
    assert [(n, w.in_view, w.crowd) for n, w in sorted(sim.walkers.items())] == [
        ("isabella_rodriguez", False, False), ("klaus_mueller", False, True), ("maria_lopez", True, False)]
    sim.config.in_view = None
    assert sim.look(scenario.start) == set(sim.walkers) and all(w.in_view for w in sim.walkers.values())
    assert not any(w.crowd for w in sim.walkers.values())


def test_topic_keywords() -> None:
    assert topic_keywords("Sam Moore's candidacy for mayor", ["Sam Moore"]) == ["candidacy", "mayor"]
    assert topic_keywords("Valentine's Day party at Hobbs Cafe", ["Hobbs Cafe"]) == ["valentine", "party"]


@pytest.mark.slow
def test_a_small_town_runs_through_grpc_into_a_run_folder(fake_llm, tmp_path: Path) -> None:
    town, residents, scenario = small_town(hours=5)
    run = tmp_path / "run"
    # Lockstep: at this speed (5 game hours in half a wall second) a mind thinking in the background
    # would be outrun by the clock, and whether anyone walked would depend on the machine's load.
    stats = asyncio.run(Sim(town, residents, scenario, config(run, fake_llm.base_url, tick_s=30,
                                                              settings={"background_thinking": False})).run())
    assert stats["decides"] > 3 * 5 * 2 and stats["llm_calls"] > 0
    for name in ("config.json", "actions.jsonl", "moves.jsonl", "usage.json", "interviews.json", "stats.json"):
        assert (run / name).is_file(), name
    actions = [json.loads(x) for x in (run / "actions.jsonl").read_text().splitlines()]
    valid = {f"{town.name}:{s.name}:{a.name}" for s in town.world.sectors for a in s.arenas}
    assert all(a["address"].rsplit(":", 1)[0] in valid or a["address"] in valid for a in actions)
    # The whisper arrived at its time and is in Isabella's memory.
    memories = json.loads((run / "memories" / "isabella_rodriguez.json").read_text())["memories"]
    whispered = [m for m in memories if "Valentine" in m["description"]]
    assert whispered and whispered[0]["created"].startswith("2026-02-13T07:00")
    # NPCs walked: someone left home, and moves are logged per arena change.
    moves = [json.loads(x) for x in (run / "moves.jsonl").read_text().splitlines()]
    assert len(moves) > len(residents)
    asked = json.loads((run / "interviews.json").read_text())
    assert len([i for i in asked if i["asks"] == "news"]) == 3
    assert sorted((i["when"], i["npc_id"], i["about"]) for i in asked if i["asks"] == "knows") == sorted(
        (when, a.npc_id, b.npc_id) for when in ("start", "end") for a in residents for b in residents if a != b)
    result = report(run)
    assert result["diffusion"]["with_related_memory"] == ["isabella_rodriguez"]
    assert (run / "report.md").read_text().count("|") > 10
    assert (run / "diffusion.png").is_file() and (run / "density.png").is_file()


class Watched(Sim):
    """A sim that keeps who the player saw at each tick."""

    views: dict[datetime, set[str]]

    def look(self, now: datetime) -> set[str]:
        seen = super().look(now)
        self.views = {**getattr(self, "views", {}), now: seen}
        return seen


@pytest.mark.slow
def test_with_one_in_view_one_resident_is_told_in_view(fake_llm, tmp_path: Path) -> None:
    """--in-view 1: at every tick one resident is seen; its Decides say in view, the others' out of
    view, one coming into view is asked at that tick, and the view moves over the run."""
    town, residents, scenario = small_town(hours=4)
    requests: list[pb.DecideRequest] = []
    sim = Watched(town, residents, scenario, config(tmp_path / "run", fake_llm.base_url, tick_s=60, concurrency=1,
                                                    interview=False, in_view=1))
    call = sim.call

    async def record(method: str, body: object) -> dict:
        if method == "Decide":
            requests.append(body)  # type: ignore[arg-type]
        return await call(method, body)

    sim.call = record  # type: ignore[method-assign]
    asyncio.run(sim.run())
    assert all(len(seen) == 1 for seen in sim.views.values())
    assert {r.attention for r in requests} == {pb.ATTENTION_IN_VIEW, pb.ATTENTION_OUT_OF_VIEW}
    actions = [json.loads(x) for x in (tmp_path / "run" / "actions.jsonl").read_text().splitlines()]
    assert len(actions) == len(requests)
    for a, r in zip(actions, requests, strict=True):
        when = datetime.fromisoformat(a["game_time"])
        assert a["in_view"] == (r.attention == pb.ATTENTION_IN_VIEW) == (a["npc_id"] in sim.views[when])
    ticks = sorted(sim.views)
    came = [(t, *sim.views[t]) for before, t in zip(ticks, ticks[1:], strict=False) if sim.views[t] != sim.views[before]]
    assert came, "the view moved"
    decided = {(datetime.fromisoformat(a["game_time"]), a["npc_id"]) for a in actions if a["in_view"]}
    assert all((t, npc_id) in decided for t, npc_id in came), "who comes into view is asked at once"
    assert len({npc_id for seen in sim.views.values() for npc_id in seen}) > 1


@pytest.mark.slow
@pytest.mark.timeout(600)  # 4 min at load ~23 on 2 cores
@needs_data
def test_the_party_with_25_residents_for_a_day(tmp_path: Path, minilm_brains: None) -> None:
    """The CI check of the whole thing: `npc-lab sim` with its own fake endpoint, 25 residents,
    a whole game day at a one-minute tick, then the report from the run folder, the brain on
    MiniLM as a user's `npc-lab sim` runs. Without the
    density interviews (25 x 24 at each end took 38 of its 55 s alone, and the fake's answers say
    nothing): the information-flow tests ask them of the stand-in."""
    from npc_lab.cli import main

    run = tmp_path / "day"
    main(["sim", "--scenario", "valentines_party", "--fake-llm", "0", "--hours", "24", "--tick", "60",
          "--decide-every", "15", "--no-density", "--out", str(run)])
    stats = json.loads((run / "stats.json").read_text())
    assert stats["npcs"] == 25 and stats["game_seconds"] == 24 * 3600
    assert len(list((run / "memories").glob("*.json"))) == 25
    measured = json.loads((run / "measurements.json").read_text())
    assert measured["npcs"] == 25 and "isabella_rodriguez" in measured["diffusion"]["with_related_memory"]
    assert not measured["density"]["asked"]
    assert measured["density"]["named_start"] > 0  # the personas name their friends (the bound beside it)
    assert (run / "report.md").is_file()
    assert datetime.fromisoformat(measured["end"]) == datetime(2026, 2, 14, 7, tzinfo=UTC)


def _matrix_args(**over: str) -> argparse.Namespace:
    from npc_lab.sim import matrix

    parser = argparse.ArgumentParser()
    matrix.add_arguments(parser)
    return parser.parse_args([f"--{k.replace('_', '-')}={v}" for k, v in over.items()])


@needs_data
def test_the_matrix_runs_smallest_first_and_the_ablations_on_the_party_alone() -> None:
    """`npc-lab sim --matrix`: our towns (8 residents) before the Ville's circle of 12, the
    paper's ablations with the hard stand-in in view only, and a clear error for a wrong name."""
    from npc_lab.sim import matrix

    todo = matrix.cells(_matrix_args(cases="party,cricket", seeds="0,1"))
    assert [c.case.name for c in todo[:8]] == ["cricket"] * 8 and len(todo) == 16 + 6
    ablated = [c for c in todo if c.condition != "full"]
    assert {(c.case.name, c.mood, c.view) for c in ablated} == {("party", "hard", "in")}
    assert todo.index(ablated[0]) > max(i for i, c in enumerate(todo) if c.condition == "full")
    town, people, scenario = load_all("valentines_party")
    ring = matrix.circle(people, scenario, 12)
    assert [r.npc_id for r in ring[:2]] == ["isabella_rodriguez", "maria_lopez"] and len(ring) == 12
    with pytest.raises(ValueError, match="unknown picnic.*cases are party"):
        matrix.cells(_matrix_args(cases="picnic"))


@needs_data
def test_the_ablations_run_on_the_cases_and_with_the_moods_asked() -> None:
    """Issue 42 asks for the ablations with a blind stand-in in the new towns: `--ablation-cases`
    picks of the --cases those they run on, `--ablation-moods` the stand-ins; names are checked."""
    from npc_lab.sim import matrix

    todo = matrix.cells(_matrix_args(cases="morse,cricket", moods="blind11", views="in,out", seeds="0,1",
                                     ablations="no_reflection", ablation_cases="morse,party",
                                     ablation_moods="blind11,hard"))
    ablated = {(c.case.name, c.mood, c.view, c.condition, c.seed) for c in todo if c.condition != "full"}
    assert ablated == {("morse", m, "in", "no_reflection", s) for m in ("blind11", "hard") for s in (0, 1)}
    assert len(todo) == 2 * 2 * 2 + 4
    with pytest.raises(ValueError, match="unknown gentle"):
        matrix.cells(_matrix_args(cases="morse", ablation_moods="gentle"))
    with pytest.raises(ValueError, match="unknown fair"):
        matrix.cells(_matrix_args(cases="morse", ablation_cases="fair"))


@needs_data
def test_the_matrix_runs_controls_on_every_case_mood_view_and_seed() -> None:
    """Controls (issue 42) run beside the full architecture wherever it runs, each brain settings
    the brain itself accepts and that change it (a control naming no real setting, or a default,
    would measure nothing)."""
    from brain_server.config import Settings
    from npc_lab.sim import matrix

    todo = matrix.cells(_matrix_args(cases="cricket,morse", moods="hard", views="in,out", seeds="0,1",
                                     ablations="", controls="random_retrieval,swapped_memories"))
    assert len(todo) == 2 * 2 * 2 * 3
    for control in ("random_retrieval", "swapped_memories"):
        assert {(c.case.name, c.view, c.seed) for c in todo if c.condition == control} == \
            {(c.case.name, c.view, c.seed) for c in todo if c.condition == "full"}
    default = Settings()
    for name, settings in matrix.CONTROLS.items():
        made = Settings(**settings)
        assert all(getattr(made, k) != getattr(default, k) for k in settings), name
    with pytest.raises(ValueError, match="unknown shuffled.*controls random_retrieval"):
        matrix.cells(_matrix_args(cases="morse", controls="shuffled"))
    reworded = matrix.cells(_matrix_args(cases="morse", moods="hard", views="in", seeds="0", ablations="",
                                         rewordings="5"))
    assert [c.condition for c in reworded] == ["full", *(f"reworded{k}" for k in range(1, 6))]
    with pytest.raises(ValueError, match="there are 5 reworded sets"):
        matrix.cells(_matrix_args(cases="morse", rewordings="6"))


def test_reworded_prompt_sets_say_the_headings_otherwise_and_keep_every_placeholder(tmp_path: Path) -> None:
    """Five reworded sets of the brain's templates (issue 42): each heading in other words or form,
    sections in another order, a question kept before its instructions, no placeholder lost."""
    from brain_server.prompts import BUILTIN_DIR, PromptLibrary
    from npc_lab.rewording import STYLES, reword, write_set

    original = (BUILTIN_DIR / "conversation_summary.md").read_text()
    sets = [write_set(tmp_path / str(k), k) for k in range(1, STYLES + 1)]
    texts = [(d / "conversation_summary.md").read_text() for d in sets]
    assert len({original, *texts}) == STYLES + 1
    assert all("What $npc_name remembers that may come up:" not in t for t in texts)
    heading = re.compile(r"^.*\$(?:memories|schedule|partner_memories|places)$", re.M)
    assert all([m.group() for m in heading.finditer(t)] != [m.group() for m in heading.finditer(original)]
               for t in texts)  # the sections' order moved too
    react = reword((BUILTIN_DIR / "react.md").read_text(), 2)
    assert react.index("$choices") < react.index("Give a one-sentence reason")
    messages = PromptLibrary(sets[0]).render("react", {k: k for k in (
        "persona", "time", "npc_name", "current_activity", "place", "observation", "status", "untold", "subject",
        "relationship_memories", "status_memories", "choices", "choice_names")})
    assert "recalls of" in messages[1]["content"]


def test_a_line_that_goes_on_from_the_one_before_is_no_heading() -> None:
    """blind31's writer: set 2 made "## (e.g. "opening the cafe"), one emoji, and where it happens: one of
    these places $npc_name knows" of the daily plan's instructions, the sentence cut in two. A line
    ending in a colon before placeholders is a heading only where the line before it ends a sentence, a
    placeholder or nothing; every set keeps such a line's words."""
    from brain_server.prompts import BUILTIN_DIR
    from npc_lab.rewording import STYLES, reword

    template = "Make a plan. Each step has a time, the activity\nin a few words, and a place you know:\n$places\n\n" \
               "Today is $date.\nWhat $npc_name remembers that may come up:\n$memories"
    for style in range(1, STYLES + 1):
        text = reword(template, style)
        assert "the activity\nin a few words, and a place you know:\n$places" in text, text
        assert "What $npc_name remembers that may come up:\n" not in text  # a heading still is one
    for name in ("daily_plan.md", "replan.md", "conversation_memo.md", "reflection_insights.md"):
        original = (BUILTIN_DIR / name).read_text()
        kept = [line for line in original.split("\n") if line.endswith("knows:") or line.startswith("numbered statements")]
        assert all(line in reword(original, 2) for line in kept), name


def test_a_started_brain_reflects_at_the_sims_threshold_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sim perceives at each Decide, far less often than the paper's world: the brain it starts
    gets the threshold that gives the paper's 2-3 reflections a day; the environment or the caller
    still decides, and a running brain is left as it is."""
    from npc_lab.sim.runner import REFLECTION_THRESHOLD, SimConfig

    monkeypatch.delenv("NPC_BRAIN_REFLECTION_THRESHOLD", raising=False)
    assert SimConfig(out=Path("r")).brain_settings["reflection_threshold"] == REFLECTION_THRESHOLD < 150
    assert SimConfig(out=Path("r"), brain_settings={"reflection_threshold": 90}).brain_settings == \
        {"reflection_threshold": 90}
    assert "reflection_threshold" not in SimConfig(out=Path("r"), brain="127.0.0.1:1").brain_settings
    monkeypatch.setenv("NPC_BRAIN_REFLECTION_THRESHOLD", "120")
    assert "reflection_threshold" not in SimConfig(out=Path("r")).brain_settings


def test_the_matrix_plots_seeds_whose_mean_rounds_outside_their_range(tmp_path: Path) -> None:
    """Three seeds of 0.1 average to 0.10000000000000002: the whiskers once went negative and
    matplotlib refused the plot, ending a matrix of a dozen runs after its first group."""
    rows = [{"case": "c", "scenario": "S", "mood": mood, "view": "in", "condition": "full", "seed": seed, "n": 10,
             "diffusion": 0.1, "density_start": 0.1, "density_end": 0.2, "attended": 0.1, "hallucinated": 0,
             "llm_calls": 5, "reflections_per_day": 1.1} for mood in ("blind", "hard") for seed in range(3)]
    from npc_lab.sim import matrix

    matrix.write(tmp_path, rows)
    assert (tmp_path / "matrix.png").stat().st_size > 0
    assert "| S (10) | blind | in | full | 3 | 10%, 10% [10%-10%] (10%-10%) |" in (tmp_path / "matrix.md").read_text()


def test_the_interval_of_a_mean_over_seeds_is_the_bootstraps_and_reads_the_same_each_time() -> None:
    """Issue 42 asks the full architecture's interval to lie above each ablation's: the 95% interval
    of the mean over the seeds, inside their range, narrower than it, and the same on every call."""
    from npc_lab.sim import matrix

    seeds = [1.0, 0.9, 0.9, 0.7, 0.9, 0.8, 1.0, 0.8, 0.7, 0.9]
    low, high = matrix.interval(seeds)
    assert 0.7 < low < sum(seeds) / len(seeds) < high < 1.0 and (low, high) == matrix.interval(seeds)
    assert matrix.interval([0.5] * 4) == (0.5, 0.5)
    apart = matrix.interval([0.3, 0.2, 0.4, 0.3, 0.2, 0.3, 0.4, 0.2, 0.3, 0.3])
    assert apart[1] < low


def test_the_matrix_says_which_reworded_runs_lie_outside_the_shipped_prompts_seeds(tmp_path: Path) -> None:
    """Issue 42's rewording check, written with the matrix: each reworded run's diffusion and who
    came against the range of the shipped prompts' seeds, and how many runs would be outside by
    chance alone (2/(n+1) a run: another seed of the same prompts)."""
    from npc_lab.sim import matrix

    def run(condition: str, seed: int, knew: float, came: int) -> dict[str, Any]:
        return {"case": "c", "scenario": "S", "mood": "blind", "view": "in", "condition": condition, "seed": seed,
                "n": 10, "diffusion": knew, "density_start": 0.1, "density_end": 0.5, "attended": came,
                "came_share": came / 8, "invited": 8, "hallucinated": 0, "llm_calls": 5, "reflections_per_day": 1.0}

    rows = [run("full", s, k, c) for s, (k, c) in enumerate([(0.9, 6), (1.0, 8), (0.9, 7), (0.9, 7)])]
    rows += [run("reworded1", 0, 0.9, 7), run("reworded1", 1, 0.8, 7), run("reworded2", 0, 1.0, 5)]
    (line,) = matrix.rewording_check(rows)
    assert line.startswith("Rewording check, S, blind, in: 3 reworded runs against 4 seeds of the shipped prompts "
                           "(knew 90%-100%, 6-8 came); medians 90% knew, 7 came against 90%, 7; outside the range: "
                           "reworded1 s1 knew 80%, reworded2 s0 5 came")
    assert line.endswith("= 40%: 1.2 of 3 runs a measure by chance alone)")
    assert matrix.rewording_check([r for r in rows if r["condition"] == "full"]) == []
    no_event = [{**r, "came_share": None, "invited": 0} for r in rows]  # a town whose news invites nobody
    assert matrix.rewording_check(no_event)[0].startswith(
        "Rewording check, S, blind, in: 3 reworded runs against 4 seeds of the shipped prompts (knew 90%-100%); "
        "medians 90% knew against 90%; outside the range: reworded1 s1 knew 80% (")
    matrix.write(tmp_path, rows)
    assert "reworded1 s1 knew 80%" in (tmp_path / "matrix.md").read_text()
