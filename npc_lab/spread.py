"""`npc-lab bench spread --before RUN... --after RUN...`: runs of `bench realtime` pooled per side
and compared. One run's p99 is its second or third slowest Decide (about 200 a transport in two
minutes), so whether a change moved the tail cannot be read from one run against another. Here
every answered Decide of a side's runs is pooled, and each percentile, and after minus before, gets
a 95% interval from a two-level bootstrap: runs drawn with replacement, then each drawn run's
Decides, so that a run that stalled counts as one run, not as hundreds of independent samples."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import random
from typing import Any

from brain_server.runtime.vitals import percentile

QUANTILES = (50, 90, 99)
DRAWS = 2000
TRANSPORTS = ("grpc", "connect")


def samples(run: Path) -> dict[str, list[float]]:
    """Each transport's answered Decides (ms) in a run folder of `bench realtime`, or its JSON."""
    path = run / "bench-realtime.json" if run.is_dir() else run
    try:
        decide = json.loads(path.read_text())["result"]["decide"]
    except (OSError, ValueError, KeyError) as exc:
        raise SystemExit(f"{path}: not the output of `npc-lab bench realtime` ({exc})") from None
    missing = [t for t in TRANSPORTS if "samples_ms" not in decide.get(t, {})]
    if missing:
        raise SystemExit(f"{path}: no samples_ms for {', '.join(missing)}: the run was made before `bench realtime` "
                         "kept every Decide; run it again")
    return {t: decide[t]["samples_ms"] for t in TRANSPORTS}


def _at(values: list[float], q: int) -> float:
    """The q-th percentile (nearest rank, as the brain's vitals take it; `percentile` sorts)."""
    return percentile(values, q / 100)


def _draw(runs: list[list[float]], rng: random.Random) -> list[float]:
    """One bootstrap side: runs drawn with replacement, then the Decides of each drawn run."""
    pooled: list[float] = []
    for run in rng.choices(runs, k=len(runs)):
        pooled.extend(rng.choices(run, k=len(run)))
    return pooled


def _interval(values: list[float]) -> list[float]:
    ordered = sorted(values)  # sorted once: `percentile` sorts again, in linear time on sorted input
    return [round(percentile(ordered, 0.025), 2), round(percentile(ordered, 0.975), 2)]


def compare(before: list[list[float]], after: list[list[float]], seed: int = 0, draws: int = DRAWS) -> dict[str, Any]:
    """Pooled percentiles of each side with 95% intervals, and of after minus before."""
    rng = random.Random(seed)
    drawn: dict[str, dict[int, list[float]]] = {"before": {q: [] for q in QUANTILES},
                                                "after": {q: [] for q in QUANTILES}}
    diffs: dict[int, list[float]] = {q: [] for q in QUANTILES}
    for _ in range(draws):
        b, a = sorted(_draw(before, rng)), sorted(_draw(after, rng))  # once each, for all QUANTILES
        for q in QUANTILES:
            qb, qa = _at(b, q), _at(a, q)
            drawn["before"][q].append(qb)
            drawn["after"][q].append(qa)
            diffs[q].append(qa - qb)
    out: dict[str, Any] = {}
    for side, runs in (("before", before), ("after", after)):
        pooled = [ms for run in runs for ms in run]
        out[side] = {"runs": len(runs), "decides": len(pooled),
                     "run_p99_ms": [round(_at(run, 99), 2) for run in runs],
                     **{f"p{q}_ms": round(_at(pooled, q), 2) for q in QUANTILES},
                     **{f"p{q}_interval_ms": _interval(drawn[side][q]) for q in QUANTILES}}
    out["after_minus_before"] = {f"p{q}_ms": {"difference": round(out["after"][f"p{q}_ms"] - out["before"][f"p{q}_ms"], 2),
                                              "interval": _interval(diffs[q])} for q in QUANTILES}
    return out


def bench_spread(args: argparse.Namespace) -> dict[str, Any]:
    if not args.before or not args.after:
        raise SystemExit("spread: name the runs of each side, --before RUN... --after RUN... (folders of "
                         "`npc-lab bench realtime --out`)")
    before, after = [samples(r) for r in args.before], [samples(r) for r in args.after]
    result = {t: compare([r[t] for r in before], [r[t] for r in after]) for t in TRANSPORTS}
    print(table(result))
    return {"before": [str(r) for r in args.before], "after": [str(r) for r in args.after], "draws": DRAWS, **result}


def table(result: dict[str, Any]) -> str:
    rows = ["| transport | side | runs | Decides | p50 ms [95%] | p90 ms [95%] | p99 ms [95%] | one run's p99, least-most |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for transport, sides in result.items():
        for side in ("before", "after"):
            s = sides[side]
            cells = [f'{s[f"p{q}_ms"]:.1f} [{s[f"p{q}_interval_ms"][0]:.1f}-{s[f"p{q}_interval_ms"][1]:.1f}]'
                     for q in QUANTILES]
            rows.append(f'| {transport} | {side} | {s["runs"]} | {s["decides"]} | {" | ".join(cells)} | '
                        f'{min(s["run_p99_ms"]):.1f}-{max(s["run_p99_ms"]):.1f} |')
        d = sides["after_minus_before"]
        cells = [f'{d[f"p{q}_ms"]["difference"]:+.1f} [{d[f"p{q}_ms"]["interval"][0]:+.1f} to '
                 f'{d[f"p{q}_ms"]["interval"][1]:+.1f}]' for q in QUANTILES]
        rows.append(f'| {transport} | after - before | | | {" | ".join(cells)} | |')
    return "\n".join(rows)
