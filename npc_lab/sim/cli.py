"""`npc-lab sim`: run a scenario in the headless world, then measure the run folder."""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime, timedelta
import json
import os
from pathlib import Path
import sys

from npc_lab.sim import matrix
from npc_lab.sim.runner import REFLECTION_THRESHOLD
from npc_lab.standin import MOODS


def add_parser(commands: argparse._SubParsersAction) -> None:
    sim = commands.add_parser("sim", help="run a scenario headless against a brain and measure it",
                              description="Run the town, its residents and a scenario in a headless world that "
                              "drives the brain over gRPC like Godot; results go to a run folder (runs/<time>/). "
                              "Without --brain a brain is started with the NPC_BRAIN_* settings in the environment.")
    sim.add_argument("--scenario", default="valentines_party", help="name under godot_project/data/scenarios or a path")
    sim.add_argument("--town", type=Path, help="the town's layout as Godot exports it (default: "
                     "godot_project/data/town_layout.json)")
    sim.add_argument("--residents", type=Path, help="a folder of resident files (default: godot_project/data/residents)")
    sim.add_argument("--brain", default="", help="gRPC target of a running brain (default: start one)")
    sim.add_argument("--hours", type=float, help="game hours to run (default: the scenario's days)")
    sim.add_argument("--npcs", type=int, help="only the first N residents (by npc_id; the scenario's people kept)")
    sim.add_argument("--concurrency", type=int, default=1,
                     help="Decide calls in flight at once (default 1: in npc_id order, so that a run with a stand-in "
                     "repeats exactly; more finishes sooner on many cores, and runs then part by timing)")
    sim.add_argument("--tick", type=int, default=10, help="game seconds per step (10 = the paper; 60 is coarser)")
    sim.add_argument("--decide-every", type=int, default=10, help="game minutes between Decides while acting")
    sim.add_argument("--runs-dir", type=Path, default=Path("runs"))
    sim.add_argument("--out", type=Path, help="run folder (default: <runs-dir>/<UTC time>)")
    sim.add_argument("--no-interview", action="store_true", help="skip the closing interviews")
    sim.add_argument("--fake-llm", type=float, metavar="LATENCY_S", help="start npc_lab/fake_openai.py with this latency "
                     "and point the started brain at it")
    sim.add_argument("--stand-in-llm", type=float, metavar="LATENCY_S", help="start npc_lab/standin_openai.py (a "
                     "model that only copies what its prompt shows) with this latency and point the started brain at it")
    sim.add_argument("--mood", choices=list(MOODS), default="cooperative",
                     help="the stand-in's mood: cooperative shares and accepts everything; hard declines, forgets "
                     "and paraphrases (npc_lab/standin/hard.py); blind to blind22 were each written from captured "
                     "requests alone by another hand and frozen (npc_lab/standin/blind*.py): the ones whose figures "
                     "are evidence (blind2, blind16, blind19, blind20, blind21 and blind22 never probed; blind11, blind12, "
                     "blind15, blind17 and blind18 read after their figures); blind23 answers interviews and blind24 "
                     "judges them (npc-lab eval), nothing else")
    sim.add_argument("--reflection-threshold", type=int, metavar="N",
                     help=f"a started brain's reflection threshold (default {REFLECTION_THRESHOLD}, or "
                          "NPC_BRAIN_REFLECTION_THRESHOLD: the paper's 2-3 reflections a day at this world's "
                          "perception rate; 150 is the paper's own number)")
    sim.add_argument("--seed", type=int, default=0, help="seed of the stand-in model's choices")
    sim.add_argument("--ablate", default="", help="memory kinds the started brain's retrieval cannot reach while the "
                     "town lives (observation, reflection, planning, comma-separated; the paper's ablations), or the lab control "
                     "swap_speakers (each speaker shown the other's memories)")
    sim.add_argument("--no-density", action="store_true", help="skip asking every resident whether it knows every "
                     "other at the start and the end (n x (n-1) interviews each time)")
    sim.add_argument("--in-view", type=int, metavar="N", help="a player in the town sees the N residents nearest to "
                     "them (moving to the next sector every game hour): each Decide says in view or out of view "
                     "(default: attention not sent, all treated as in view)")
    sim.add_argument("--measure", type=Path, metavar="RUN", help="only measure an existing run folder")
    matrix.add_arguments(sim)


def run(args: argparse.Namespace) -> None:
    from npc_lab.sim.measure import report

    if args.matrix:
        matrix.run(args)
        return
    if args.measure:
        if not (args.measure / "config.json").is_file():
            sys.exit(f"npc-brain: {args.measure} is not a run folder (no config.json)")
        _print_report(args.measure, report(args.measure))
        return
    from npc_lab.sim.data import load_all
    from npc_lab.sim.runner import Sim, SimConfig

    try:
        town, residents, scenario = load_all(args.scenario, args.town, args.residents)
    except (OSError, ValueError) as exc:
        sys.exit(f"npc-brain: cannot load the scenario: {exc}")
    if args.npcs:
        keep = {w.npc_id for w in scenario.whispers} | ({scenario.host} if scenario.host else set())
        rest = [r for r in residents if r.npc_id not in keep]
        residents = [r for r in residents if r.npc_id in keep] + rest[: max(0, args.npcs - len(keep))]
    out = args.out or args.runs_dir / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    settings: dict[str, object] = {}
    fake = None
    if (args.fake_llm is not None or args.stand_in_llm is not None) and not args.brain:
        from npc_lab.fake_openai import FakeOpenAI
        from npc_lab.standin_openai import StandInProcess

        if args.stand_in_llm is not None:
            fake = StandInProcess(latency_s=args.stand_in_llm, seed=args.seed, mood=args.mood).start()
            settings.update(llm_base_url=fake.base_url, llm_model="stand-in")
            # Lockstep (each Decide thinks before it answers): the headless clock does not outrun the minds,
            # so the run measures what the pipeline passes on, not how far background thinking lagged.
            if "NPC_BRAIN_BACKGROUND_THINKING" not in os.environ:
                settings["background_thinking"] = False
        else:
            fake = FakeOpenAI(latency_s=args.fake_llm).start()
            settings.update(llm_base_url=fake.base_url, llm_model="fake-model")
    if args.ablate:
        settings["ablate"] = args.ablate
    if args.reflection_threshold:
        settings["reflection_threshold"] = args.reflection_threshold
    if not args.brain and "NPC_BRAIN_DATA_DIR" not in os.environ:
        settings["data_dir"] = out / "brain-data"
    config = SimConfig(out=out, brain=args.brain, brain_settings=settings, concurrency=args.concurrency,
                       tick_s=args.tick, decide_every_min=args.decide_every, interview=not args.no_interview,
                       ask_density=not args.no_density, in_view=args.in_view,
                       duration=timedelta(hours=args.hours) if args.hours else None)
    print(f"sim: {scenario.name}, {len(residents)} residents, run folder {out}", file=sys.stderr, flush=True)
    try:
        stats = asyncio.run(Sim(town, residents, scenario, config).run())
    finally:
        if fake:
            fake.stop()
    print(json.dumps(stats), flush=True)
    _print_report(out, report(out))


def _print_report(run: Path, _: dict) -> None:
    print((run / "report.md").read_text(), flush=True)
