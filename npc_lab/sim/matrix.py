"""`npc-lab sim --matrix`: the information-flow evaluation in one command (issue 30). Each case (a
town and its event) runs with each stand-in mood, in view and out of view, over several seeds, and
the party (or the cases asked) again under the paper's ablations (the town's own brain started with NPC_BRAIN_ABLATE,
so retrieval cannot reach the ablated memories while the news travels); each run is an ordinary run
folder with its report. Printed: a progress line per run and a table of diffusion, mutual density
and attendance (mean and range over the seeds) beside the paper's figures; written: matrix.json and
matrix.png in the output folder. Runs go smallest first (residents x hours), so a cut-short matrix
still has its small towns.
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
import json
from pathlib import Path
import random
import re
import shutil
import statistics
import sys
import time
from typing import Any

from npc_lab.rewording import STYLES, write_set
from npc_lab.sim.data import ROOT, Resident, Scenario, load_all
from npc_lab.sim.measure import PAPER, report
from npc_lab.sim.runner import Sim, SimConfig

TESTS_DATA = ROOT / "tests" / "data"
TOWNS = Path(__file__).resolve().parent.parent / "towns"  # written by someone else, tuned on by nobody
PAPER_FIGURES = {"diffusion": {"party": 0.52, "election": 0.32}, "density": (0.167, 0.74),
                 "attended": "5 of 12 invited"}
ABLATIONS = {"no_reflection": "reflection", "no_reflection_planning": "reflection,planning",
             "no_memory": "observation,reflection,planning"}  # the paper's conditions
# Controls (issue 42), run on every case, mood and view asked: what diffusion is without the
# architecture's part. random_retrieval: with every weight 0 no memory ranks above another, so each
# prompt gets as many memories as before, in the store's own order, unrelated to the question.
# swapped_memories: each speaker's conversation prompts (and its reaction to the other) show the
# memories and news retrieved for the other (`MemoryStream.heads`), so a teller sees its news only
# through its partner's head; leakage reads near 100% there. If diffusion holds under either, the
# stand-in, not the brain, carries the news.
CONTROLS: dict[str, dict[str, Any]] = {"random_retrieval": {"weight_recency": 0.0, "weight_importance": 0.0,
                                                            "weight_relevance": 0.0},
                                       "swapped_memories": {"ablate": "swap_speakers"}}
# A mood's colour in the plots: the next of these in the order of `MOODS` (cooperative, hard, then the blind ones).
PALETTE = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
           "tab:cyan", "tab:gray")
VIEWS = {"in": None, "out": 0}  # out: no resident in the player's view


@dataclass(frozen=True)
class Case:
    """A town and its event. `circle`: how many of the town's residents run (the host, the
    whispered, then those whose personas name them, then the rest by id); 0 = all."""

    name: str
    scenario: str
    town: Path | None = None
    residents: Path | None = None
    hours: float | None = None
    circle: int = 0


CASES = {
    "party": Case("party", "valentines_party", hours=36, circle=12),  # to the party's end, Feb 14 19:00
    "election": Case("election", "mayoral_election", circle=12),
    "lantern": Case("lantern", str(TESTS_DATA / "saltmarsh" / "lantern_walk.json"),
                    TESTS_DATA / "saltmarsh" / "town_layout.json", TESTS_DATA / "saltmarsh" / "residents", hours=37),
    "cricket": Case("cricket", str(TESTS_DATA / "wyncombe" / "cricket_match.json"),
                    TESTS_DATA / "wyncombe" / "town_layout.json", TESTS_DATA / "wyncombe" / "residents", hours=33),
    "shortwave": Case("shortwave", str(TOWNS / "tarnbeck" / "shortwave_evening.json"), TOWNS / "tarnbeck" /
                      "town_layout.json", TOWNS / "tarnbeck" / "residents", hours=38),
    "morse": Case("morse", str(TOWNS / "korrin" / "morse_lesson.json"), TOWNS / "korrin" / "town_layout.json",
                  TOWNS / "korrin" / "residents", hours=34),
    "auction": Case("auction", str(TOWNS / "brinnick" / "flotsam_auction.json"), TOWNS / "brinnick" /
                    "town_layout.json", TOWNS / "brinnick" / "residents", hours=30),
    "indigo": Case("indigo", str(TOWNS / "cauldwell" / "indigo_dyeing.json"), TOWNS / "cauldwell" /
                   "town_layout.json", TOWNS / "cauldwell" / "residents", hours=33),
    # the same, whispered to the host ("you will hold indigo dyeing ..."), as the paper's inner voice speaks
    "indigo_you": Case("indigo_you", str(TOWNS / "cauldwell" / "indigo_dyeing_said_to_her.json"), TOWNS / "cauldwell" /
                       "town_layout.json", TOWNS / "cauldwell" / "residents", hours=33),
    "capsule": Case("capsule", str(TOWNS / "corvin" / "time_capsule.json"), TOWNS / "corvin" / "town_layout.json",
                    TOWNS / "corvin" / "residents", hours=37),
    "engravings": Case("engravings", str(TOWNS / "tamrit" / "giraffe_engravings.json"), TOWNS / "tamrit" /
                       "town_layout.json", TOWNS / "tamrit" / "residents", hours=24.5),
    "turtles": Case("turtles", str(TOWNS / "hijaltola" / "turtle_tide.json"), TOWNS / "hijaltola" /
                    "town_layout.json", TOWNS / "hijaltola" / "residents", hours=36),
    "sundial": Case("sundial", str(TOWNS / "ravnholmen" / "first_sun.json"), TOWNS / "ravnholmen" /
                    "town_layout.json", TOWNS / "ravnholmen" / "residents", hours=29.5),
    "raft": Case("raft", str(TOWNS / "ribalonga" / "barrel_raft.json"), TOWNS / "ribalonga" / "town_layout.json",
                 TOWNS / "ribalonga" / "residents", hours=28.5),
}


@dataclass(frozen=True)
class Cell:
    case: Case
    mood: str
    view: str
    seed: int
    condition: str = "full"

    @property
    def label(self) -> str:
        return f"{self.case.name}-{self.mood}-{self.view}-{self.condition}-s{self.seed}"


def add_arguments(sim: argparse.ArgumentParser) -> None:
    sim.add_argument("--matrix", action="store_true", help="run the information-flow matrix (cases x moods x views "
                     "x seeds, and the ablations) and print its table; --out is the matrix folder")
    sim.add_argument("--cases", default=",".join(CASES), help=f"matrix cases (default: all of {','.join(CASES)})")
    sim.add_argument("--moods", default="cooperative,hard", help="matrix stand-in moods")
    sim.add_argument("--views", default="in,out", help="matrix views: in (all in view), out (none in view)")
    sim.add_argument("--seeds", default="0,1,2", help="matrix seeds")
    sim.add_argument("--ablations", default=",".join(ABLATIONS), help="conditions run besides full, in view, on "
                     "the --ablation-cases with the --ablation-moods ('' for none)")
    sim.add_argument("--ablation-cases", default="party", help="of the --cases, those the ablations run on "
                     "(default: the party)")
    sim.add_argument("--ablation-moods", default="hard", help="stand-in moods the ablations run with (default: hard)")
    sim.add_argument("--controls", default="", help=f"control conditions run besides full on every case, mood, "
                     f"view and seed ({', '.join(CONTROLS)}; '' for none)")
    sim.add_argument("--rewordings", type=int, default=0, help="run every case, mood, view and seed again under "
                     "this many reworded prompt sets (npc_lab/rewording.py: headings and section order; up to 5)")
    sim.add_argument("--resume", action="store_true", help="keep the runs already measured in the matrix folder")
    sim.add_argument("--report", action="store_true", help="run nothing: the table, matrix.json and the plot of "
                     "the runs of this matrix already measured in the folder (a subset, when it was cut short)")
    sim.add_argument("--whole-town", action="store_true", help="run the Ville's cases with all 25 residents "
                     "(default: a circle of 12 around the host)")
    sim.add_argument("--capture", action="store_true", help="keep every chat request as the model received it "
                     "(messages, response_format, sampling) in each run's requests.jsonl: what a blind stand-in's "
                     "writer reads (docs/evaluation.md)")


def cells(args: argparse.Namespace) -> list[Cell]:
    """The matrix's runs, smallest first."""
    from npc_lab.standin import MOODS  # here, not at import: the stand-ins load only for a matrix
    split = lambda text: [x.strip() for x in text.split(",") if x.strip()]  # noqa: E731
    unknown = [c for c in split(args.cases) + split(args.ablation_cases) if c not in CASES]
    unknown += [v for v in split(args.views) if v not in VIEWS] + [c for c in split(args.ablations) if c not in ABLATIONS]
    controls = split(args.controls)
    unknown += [c for c in controls if c not in CONTROLS]
    unknown += [m for m in split(args.moods) + split(args.ablation_moods) if m not in MOODS]
    if unknown:
        raise ValueError(f"unknown {', '.join(unknown)}: cases are {', '.join(CASES)}; moods {', '.join(MOODS)}; "
                         f"views {', '.join(VIEWS)}; ablations {', '.join(ABLATIONS)}; controls {', '.join(CONTROLS)}")
    case = lambda name: CASES[name] if not args.whole_town else replace(CASES[name], circle=0)  # noqa: E731
    cases = [case(c) for c in split(args.cases)]
    seeds = [int(s) for s in split(args.seeds)]
    if not 0 <= args.rewordings <= STYLES:
        raise ValueError(f"--rewordings {args.rewordings}: there are {STYLES} reworded sets")
    conditions = ["full", *controls, *(f"reworded{k}" for k in range(1, args.rewordings + 1))]
    out = [Cell(c, m, v, s, k) for c in cases for m in split(args.moods) for v in split(args.views) for s in seeds
           for k in conditions]
    out += [Cell(case(c), m, "in", s, a) for c in split(args.cases) if c in split(args.ablation_cases)
            for m in split(args.ablation_moods) for a in split(args.ablations) for s in seeds]
    return sorted(out, key=lambda c: (_size(c.case), c.condition != "full", c.case.name, c.mood, c.view, c.condition,
                                      c.seed))


def _size(case: Case) -> float:
    _, residents, scenario = _load(case)
    return len(residents) * (case.hours or scenario.duration.total_seconds() / 3600)


def _load(case: Case) -> tuple[Any, list[Resident], Scenario]:
    if case.town and not case.town.is_file():
        raise ValueError(f"case {case.name} needs {case.town}: run the matrix from a source checkout")
    town, residents, scenario = load_all(case.scenario, case.town, case.residents)
    return town, circle(residents, scenario, case.circle), scenario


def circle(residents: list[Resident], scenario: Scenario, size: int) -> list[Resident]:
    """The host and the whispered, then the residents whose personas name one of them, then the
    rest by id: the first `size` (all when 0)."""
    told = {w.npc_id for w in scenario.whispers} | ({scenario.host} if scenario.host else set())
    names = [r.name for r in residents if r.npc_id in told]
    knows = lambda r: any(re.search(rf"\b{re.escape(n)}\b", json.dumps(r.persona)) for n in names)  # noqa: E731
    ranked = sorted(residents, key=lambda r: (r.npc_id not in told, not knows(r), r.npc_id))
    return ranked[:size] if size else ranked


def run_cell(cell: Cell, folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One sim with the stand-in, measured: its row of the matrix."""
    from npc_lab.standin_openai import StandInProcess

    town, residents, scenario = _load(cell.case)
    settings: dict[str, Any] = {"background_thinking": False}
    if getattr(args, "reflection_threshold", None):
        settings["reflection_threshold"] = args.reflection_threshold
    if cell.condition in ABLATIONS:
        settings["ablate"] = ABLATIONS[cell.condition]
    settings.update(CONTROLS.get(cell.condition, {}))
    if cell.condition.startswith("reworded"):
        style = int(cell.condition.removeprefix("reworded"))
        settings["prompts_dir"] = str(write_set(folder / f"prompts-{cell.condition}", style))
    out = folder / cell.label
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    settings["llm_record"] = str(out / "calls.jsonl")  # what the brain showed the model: exposure, leakage
    started = time.perf_counter()
    capture = out / "requests.jsonl" if getattr(args, "capture", False) else None
    with StandInProcess(seed=cell.seed, mood=cell.mood, capture=capture) as model:
        settings.update(llm_base_url=model.base_url, llm_model=f"stand-in-{cell.mood}")
        config = SimConfig(out=out, brain_settings=settings, concurrency=args.concurrency, tick_s=args.tick,
                           decide_every_min=args.decide_every, in_view=VIEWS[cell.view], progress_s=0,
                           ask_density=not args.no_density, interview=not args.no_interview,
                           duration=timedelta(hours=cell.case.hours) if cell.case.hours else None)
        asyncio.run(Sim(town, residents, scenario, config).run())
    report(out)
    (out / "matrix-wall.txt").write_text(f"{time.perf_counter() - started:.1f}\n")
    return row(cell, out)


def row(cell: Cell, out: Path) -> dict[str, Any]:
    """A measured run folder's row of the matrix."""
    m = json.loads((out / "measurements.json").read_text())
    stats = json.loads((out / "stats.json").read_text())
    wall = out / "matrix-wall.txt"
    d, g, c = m["diffusion"], m["density"], m["coordination"]
    return {"case": cell.case.name, "scenario": m["scenario"], "mood": cell.mood, "view": cell.view,
            "seed": cell.seed, "condition": cell.condition, "run": str(out), "n": d["n"],
            "knew_start": d["start"], "knew_end": d["end"], "diffusion": d["end_pct"],
            "hallucinated": len(d["hallucinated"]), "density_start": g["start"], "density_end": g["end"],
            "invited": len(c["invited"]) if c else None, "attended": len(c["planned_attended"]) if c else None,
            "attended_share": len(c["planned_attended"]) / len(c["invited"]) if c and c["invited"] else None,
            "came_share": len(c["invited_attended"]) / len(c["invited"]) if c and c["invited"] else None,
            "fidelity": len(c["kept"]) / len(c["committed"]) if c and c.get("committed") else None,
            "llm_calls": stats["llm_calls"],
            "exposure": (m.get("exposure") or {}).get("share"),
            "exposure_host": ((m.get("exposure") or {}).get("host") or {}).get("share"),
            "leaked": (m.get("leakage") or {}).get("leaked"), "leakage": (m.get("leakage") or {}).get("share"),
            "reflections_per_day": m["reflections"]["per_day_mean"] if m.get("reflections") else None,
            "wall_s": float(wall.read_text()) if wall.is_file() else round(stats["wall_seconds"], 1)}


def run(args: argparse.Namespace) -> None:
    try:
        todo = cells(args)
    except (OSError, ValueError) as exc:
        sys.exit(f"npc-lab: {exc}")
    folder = args.out or args.runs_dir / datetime.now(UTC).strftime("matrix-%Y%m%d-%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"matrix: {len(todo)} runs, folder {folder}", file=sys.stderr, flush=True)
    rows: list[dict[str, Any]] = []
    if args.report:
        todo = [c for c in todo if (folder / c.label / "measurements.json").is_file()]
    for i, cell in enumerate(todo, 1):
        done = folder / cell.label / "measurements.json"
        kept = (args.resume or args.report) and done.is_file()
        result = row(cell, done.parent) if kept else run_cell(cell, folder, args)
        rows.append(result)
        attended = f", attended {result['attended']} of {result['invited']} invited" if result["invited"] is not None else ""
        density = f"{_num(result['density_start'])} -> {_num(result['density_end'])}"
        print(f"[{i}/{len(todo)}] {cell.label}: diffusion {result['diffusion']:.0%} ({result['knew_end']}/{result['n']}), "
              f"density {density}{attended}, {result['llm_calls']} LLM calls, {result['wall_s']:.0f} s",
              file=sys.stderr, flush=True)
        write(folder, rows)
    print("\n\n".join([table(summarise(rows)), *rewording_check(rows)]), flush=True)


def interval(values: list[float], level: float = 0.95, draws: int = 10_000) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean over the seeds (resampled with a fixed seed, so a
    matrix's table reads the same every time): whether two conditions' intervals overlap is how
    issue 42 asks that the full architecture beat each ablation."""
    pick = random.Random(0)
    means = sorted(statistics.fmean(pick.choices(values, k=len(values))) for _ in range(draws))
    tail = (1 - level) / 2
    return means[int(tail * draws)], means[min(draws - 1, int((1 - tail) * draws))]


def summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (case, mood, view, condition): each measure's median, mean, min and max over the
    seeds, and for diffusion and attendance the 95% interval of the mean (`interval`)."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["case"], r["mood"], r["view"], r["condition"]), []).append(r)
    out = []
    for (case, mood, view, condition), runs in groups.items():
        row: dict[str, Any] = {"case": case, "scenario": runs[0]["scenario"], "mood": mood, "view": view,
                               "condition": condition, "seeds": [r["seed"] for r in runs], "n": runs[0]["n"]}
        for key in ("diffusion", "density_start", "density_end", "attended", "attended_share", "came_share", "fidelity", "hallucinated",
                    "llm_calls", "reflections_per_day", "exposure", "exposure_host", "leaked", "leakage"):
            values = [r[key] for r in runs if r.get(key) is not None]
            row[key] = {"median": statistics.median(values), "mean": statistics.fmean(values), "min": min(values),
                        "max": max(values)} if values else None
            if values and key in ("diffusion", "attended"):
                row[key]["interval"] = interval(values)
        out.append(row)
    return out


def table(groups: list[dict[str, Any]]) -> str:
    lines = ["| case | stand-in | view | condition | seeds | diffusion median, mean [95% interval] (min-max) | mutual density start -> end "
             "| invitees attended median, mean (min-max) | share of the invited who came with it in a plan or thought, "
             "median (min-max); who came at all "
             "| commitments kept, median | reflections a day | exposure: all, host; leakage | paper |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for g in groups:
        d, att = g["diffusion"], g["attended"]
        paper = f"{PAPER_FIGURES['diffusion'].get(g['case'], PAPER_FIGURES['diffusion']['party']):.0%}, " + (
            PAPER["coordination"].split(" (")[0] if att else "-")
        lines.append(f"| {g['scenario']} ({g['n']}) | {g['mood']} | {g['view']} | {g['condition']} | {len(g['seeds'])} | "
                     f"{d['median']:.0%}, {d['mean']:.0%} [{d['interval'][0]:.0%}-{d['interval'][1]:.0%}] "
                     f"({d['min']:.0%}-{d['max']:.0%}) | {_range(g['density_start'])} -> "
                     f"{_range(g['density_end'])} | {_range(att, 1, median=True) if att else '-'} | "
                     f"{_shares(g.get('attended_share'))}; {_shares(g.get('came_share'))} | "
                     f"{_shares(g.get('fidelity'), spread=False)} | "
                     f"{_range(g.get('reflections_per_day'), 1)} | {_exposure(g)} | {paper} |")
    return "\n".join(lines) + "\n\nPaper (25 agents, 2 days, gpt-3.5-turbo): diffusion party 4% -> 52%, candidacy " \
        "4% -> 32%; density 0.167 -> 0.74; 5 of 12 invited attended; 2-3 reflections a day. Every other figure: the " \
        "stand-in model."


def _shares(figure: dict[str, Any] | None, *, spread: bool = True) -> str:
    """A share's median (and range over the seeds), "-" where no seed had any."""
    if not figure:
        return "-"
    return f"{figure['median']:.0%}" + (f" ({figure['min']:.0%}-{figure['max']:.0%})" if spread else "")


def _exposure(group: dict[str, Any]) -> str:
    """The median share of knowers' social prompts that showed the news, and of the host's; and of
    the memory lines shown as a speaker's that were another's ("-": not recorded)."""
    shares = [f"{group[k]['median']:.0%}" if group.get(k) else "-" for k in ("exposure", "exposure_host", "leakage")]
    return f"{shares[0]}, {shares[1]}; {shares[2]}"


def _came(r: dict[str, Any]) -> int | None:
    return None if r.get("came_share") is None else round(r["came_share"] * r["invited"])


def rewording_check(rows: list[dict[str, Any]]) -> list[str]:
    """Issue 42's rewording check, per case, stand-in and view: each reworded run's diffusion and
    who came of the invited against the range of the shipped prompts' seeds (`full`). One more run
    of the shipped prompts falls outside the range of n others with chance 2/(n+1) (ties aside), so
    the line says how many would be outside by chance alone."""
    lines = []
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["scenario"], r["mood"], r["view"]), []).append(r)
    for (scenario, mood, view), runs in groups.items():
        full = [r for r in runs if r["condition"] == "full"]
        reworded = sorted((r for r in runs if r["condition"].startswith("reworded")),
                          key=lambda r: (r["condition"], r["seed"]))
        if len(full) < 2 or not reworded:
            continue
        knew = [r["diffusion"] for r in full]
        came = [c for r in full if (c := _came(r)) is not None]
        outside = []
        for r in reworded:
            if not min(knew) <= r["diffusion"] <= max(knew):
                outside.append(f"{r['condition']} s{r['seed']} knew {r['diffusion']:.0%}")
            c = _came(r)
            if came and c is not None and not min(came) <= c <= max(came):
                outside.append(f"{r['condition']} s{r['seed']} {c} came")
        chance = 2 / (len(full) + 1)
        came_reworded = [c for r in reworded if (c := _came(r)) is not None]
        medians = f"medians {statistics.median(r['diffusion'] for r in reworded):.0%} knew" + (
            f", {statistics.median(came_reworded):g} came" if came and came_reworded else "") + \
            f" against {statistics.median(knew):.0%}" + (f", {statistics.median(came):g}" if came else "")
        lines.append(f"Rewording check, {scenario}, {mood}, {view}: {len(reworded)} reworded runs against {len(full)} "
                     f"seeds of the shipped prompts (knew {min(knew):.0%}-{max(knew):.0%}"
                     + (f", {min(came)}-{max(came)} came" if came else "") + f"); {medians}; outside the range: "
                     + (", ".join(outside) if outside else "none")
                     + f" (another seed of the shipped prompts falls outside such a range with chance 2/(n+1) = "
                       f"{chance:.0%}: {chance * len(reworded):.1f} of {len(reworded)} runs a measure by chance alone)")
    return lines


def write(folder: Path, rows: list[dict[str, Any]]) -> None:
    groups = summarise(rows)
    (folder / "matrix.json").write_text(json.dumps({"paper": PAPER_FIGURES, "runs": rows, "groups": groups}, indent=1))
    (folder / "matrix.md").write_text("\n\n".join([table(groups), *rewording_check(rows)]) + "\n")
    plot(folder / "matrix.png", groups)


def plot(path: Path, groups: list[dict[str, Any]]) -> None:
    """Diffusion and attendance per group (bars: mean; whiskers: min-max over seeds), the paper's beside."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    labels = [f"{g['case']} {g['mood'][:4]} {g['view']}" + ("" if g["condition"] == "full" else f" {g['condition']}")
              for g in groups]
    fig, axes = plt.subplots(1, 2, figsize=(max(8, 0.45 * len(groups) + 4), 4.5), dpi=100)
    for ax, key, paper, ylabel in ((axes[0], "diffusion", 0.52, "share who know at the end"),
                                   (axes[1], "attended", 5, "invitees at the place in time")):
        shown = [(i, g[key]) for i, g in enumerate(groups) if g[key]]
        xs = [i for i, _ in shown]
        means = [v["mean"] for _, v in shown]
        # max(0, ...): a mean of equal floats can land a rounding step outside their range
        errors = [[max(0.0, v["mean"] - v["min"]) for _, v in shown], [max(0.0, v["max"] - v["mean"]) for _, v in shown]]
        colours = [mood_colour(groups[i]["mood"]) for i in xs]
        ax.bar(xs, means, yerr=errors, color=colours, capsize=3)
        ax.axhline(paper, linestyle="--", color="black", label="paper (gpt-3.5, the party)")
        ax.set_xticks(range(len(groups)), labels, rotation=70, ha="right", fontsize=7)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    axes[0].set_ylim(0, 1)
    fig.suptitle("Information flow with the stand-in (blue: cooperative, orange: hard); min-max over seeds", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def mood_colour(mood: str) -> str:
    from npc_lab.standin import MOODS  # loaded already by the matrix that plots
    order = list(MOODS)
    return PALETTE[order.index(mood) % len(PALETTE)] if mood in order else PALETTE[0]


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _range(v: dict[str, float] | None, digits: int = 2, *, median: bool = False) -> str:
    if not v:
        return "-"
    return (f"{v['median']:.{digits}f}, " if median else "") + f"{v['mean']:.{digits}f} ({v['min']:.{digits}f}-{v['max']:.{digits}f})"
