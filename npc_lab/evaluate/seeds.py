"""The judge's ratings over several runs of one town (one run a seed): each run's TrueSkill mu is one
sample, so the conditions compare by the interval of their mean over the runs. One run's sigma
says how sure the judge's games make its mu, not how another seed of the town would rate it; issue
42 asks that the full architecture stand above each ablation with intervals that do not overlap."""

from __future__ import annotations

from collections.abc import Sequence
import json
from pathlib import Path
import statistics
from typing import Any

from npc_lab.sim.matrix import interval
from npc_lab.tables import markdown_table

MEASURES = ("mu", "mean_rank", "first_rate")
JUDGEMENTS = "judgements.jsonl"  # the judge's rankings of one run (judge.py), one question a line


def read_summary(run: Path) -> dict[str, Any]:
    """RUN/eval/summary.json with the judge's ratings in it, or a ValueError that says what to do."""
    path = run / "eval" / "summary.json"
    if not path.is_file():
        raise ValueError(f"{path} does not exist: run `npc-lab eval {run} --judge` first")
    summary = json.loads(path.read_text(encoding="utf-8"))
    if not summary.get("judge", {}).get("ratings"):
        raise ValueError(f"{path} has no judge's ratings: run `npc-lab eval {run} --judge` again")
    return dict(summary)


def combine(summaries: Sequence[tuple[str, dict[str, Any]]], baseline: str = "full") -> dict[str, Any]:
    """Per condition, each run's mu, mean rank and first-place rate, and over the runs their median,
    mean, least, most and the 95% bootstrap interval of the mean; and for each other condition whether
    `baseline`'s mu interval lies wholly above its own."""
    if len(summaries) < 2:
        raise ValueError("an interval over seeds needs two or more runs")
    conditions = list(summaries[0][1]["judge"]["ratings"])
    for run, summary in summaries:
        if list(summary["judge"]["ratings"]) != conditions:
            raise ValueError(f"{run} rated {', '.join(summary['judge']['ratings'])}, not {', '.join(conditions)}: "
                             "evaluate every run under the same conditions")
    rows: dict[str, Any] = {}
    for c in conditions:
        rated = [s["judge"]["ratings"][c] for _, s in summaries]
        row: dict[str, Any] = {"runs": [run for run, _ in summaries]}
        for key in MEASURES:
            values = [float(r[key]) for r in rated]
            lo, hi = interval(values)
            row[key] = {"each": values, "median": statistics.median(values), "mean": statistics.fmean(values),
                        "min": min(values), "max": max(values), "interval": [lo, hi]}
        rows[c] = row
    above = {c: rows[baseline]["mu"]["interval"][0] > rows[c]["mu"]["interval"][1]
             for c in conditions if c != baseline} if baseline in rows else {}
    return {"runs": len(summaries), "baseline": baseline, "conditions": rows, "baseline_above": above,
            "judges": sorted({str(s["judge"].get("model")) for _, s in summaries})}


def category_ranks(run: Path) -> dict[str, dict[str, float]]:
    """One run's mean rank per question category and condition over the questions its judge ranked
    (RUN/eval/judgements.jsonl; {} without it): where in the interview a condition gains or loses."""
    path = run / "eval" / JUDGEMENTS
    if not path.is_file():
        return {}
    ranks: dict[str, dict[str, list[float]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        judged = json.loads(line) if line.strip() else {}
        if judged.get("judged") and judged.get("ranks"):
            for condition, rank in judged["ranks"].items():
                ranks.setdefault(judged["category"], {}).setdefault(condition, []).append(float(rank))
    return {category: {c: statistics.fmean(r) for c, r in by.items()} for category, by in ranks.items()}


def by_category(runs: Sequence[dict[str, dict[str, float]]], baseline: str = "full",
                order: Sequence[str] = ()) -> dict[str, Any]:
    """Per category, each condition's mean rank over the runs with its 95% bootstrap interval, and the
    conditions `baseline` ranks wholly ahead of (its interval below theirs: rank 1 is the best);
    conditions in `order`, then any other in the order met."""
    categories = list(dict.fromkeys(c for run in runs for c in run))
    out: dict[str, Any] = {}
    for category in categories:
        met = list(dict.fromkeys(c for run in runs for c in run.get(category, {})))
        conditions = [c for c in order if c in met] + [c for c in met if c not in order]
        rows: dict[str, Any] = {}
        for condition in conditions:
            values = [run[category][condition] for run in runs if condition in run.get(category, {})]
            lo, hi = interval(values) if len(values) > 1 else (values[0], values[0])
            rows[condition] = {"each": values, "mean": statistics.fmean(values), "interval": [lo, hi]}
        ahead = [c for c in conditions if c != baseline and baseline in rows
                 and rows[baseline]["interval"][1] < rows[c]["interval"][0]]
        out[category] = {"conditions": rows, "baseline_ahead_of": ahead}
    return out


def category_table(categories: dict[str, Any], baseline: str = "full") -> str:
    """`by_category` as a Markdown table, one row per category."""
    conditions = list(dict.fromkeys(c for row in categories.values() for c in row["conditions"]))
    rows = []
    for category, row in categories.items():
        cells = [f"{r['mean']:.2f} [{r['interval'][0]:.2f}-{r['interval'][1]:.2f}]" if (r := row["conditions"].get(c))
                 else "-" for c in conditions]
        rows.append([category, *cells, ", ".join(row["baseline_ahead_of"]) or "none"])
    return markdown_table(["category", *conditions, f"{baseline} ranked wholly ahead of"], rows)


def table(combined: dict[str, Any]) -> str:
    """The combined ratings as a Markdown table, one row per condition."""
    rows = []
    for c, row in combined["conditions"].items():
        mu, rank = row["mu"], row["mean_rank"]
        above = combined["baseline_above"].get(c)
        rows.append([c, combined["runs"], f"{mu['mean']:.2f} [{mu['interval'][0]:.2f}-{mu['interval'][1]:.2f}]",
                     f"{mu['min']:.2f}-{mu['max']:.2f}", f"{rank['mean']:.2f} ({rank['min']:.2f}-{rank['max']:.2f})",
                     f"{row['first_rate']['mean']:.0%}",
                     "-" if above is None else ("yes" if above else "no (intervals overlap)")])
    return markdown_table(["condition", "runs", "mu, mean [95% interval]", "mu, least-most", "mean rank (range)",
                           "ranked first", f"{combined['baseline']} above it"], rows)
