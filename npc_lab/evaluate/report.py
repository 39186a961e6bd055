"""What an evaluation leaves in RUN/eval/: the answers side by side for a person to judge
(answers.md), and with --judge the ranking's figures beside the paper's (report.md, ratings.png)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
import math
from pathlib import Path
from typing import Any

from npc_lab.evaluate.interview import KINDS
from npc_lab.evaluate.judge import PAPER_MU
from npc_lab.sim.measure import PAPER


def answers_markdown(rows: Sequence[dict[str, Any]], conditions: Sequence[str], path: Path) -> None:
    """Per resident, category and question: one table row per condition."""
    table: dict[str, dict[str, dict[str, dict[str, Any]]]] = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        table[r["npc_id"]][f'{r["category"]}\0{r["question_id"]}'][r["condition"]] = r
    lines = ["# Interview answers by condition", ""]
    for npc_id, questions in table.items():
        first = next(iter(next(iter(questions.values())).values()))
        lines += [f"## {first['name']} ({npc_id})", ""]
        category = ""
        for by_condition in questions.values():
            q = next(iter(by_condition.values()))
            if q["category"] != category:
                category = q["category"]
                lines += [f"### {category}", ""]
            lines += [f"**{q['question']}**", "", "| condition | answer |", "| --- | --- |"]
            lines += [f"| {c} | {_cell(by_condition[c]['answer'])}{' (fallback)' if by_condition[c]['fallback'] else ''} |"
                      for c in conditions if c in by_condition]
            lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def report_markdown(out: Path, *, run: Path, residents: int, questions: int, costs: Sequence[dict[str, Any]],
                    rows: Sequence[dict[str, Any]], judged: dict[str, Any] | None,
                    emergent: dict[str, Any] | None = None) -> None:
    """report.md: what was asked, what each condition retrieved and cost, and the judge's figures."""
    per_condition: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        per_condition[r["condition"]].append(r)
    lines = [f"# Interview evaluation of `{run}`", "",
             f"{residents} residents x {questions} questions x {len(costs)} conditions = {len(rows)} answers "
             "(Interview RPC, remember=false, at the run's end game time).", "",
             "| condition | ablated | answers | fallbacks | memories retrieved per answer "
             f"({' / '.join(KINDS)}) | wall s | LLM calls |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for c in costs:
        mine = per_condition[c["condition"]]
        per_kind = " / ".join(f"{sum(r['retrieved'][k] for r in mine) / max(1, len(mine)):.1f}" for k in KINDS)
        lines.append(f"| {c['condition']} | {', '.join(c['ablate']) or '-'} | {c['answers']} | {c['fallbacks']} | "
                     f"{per_kind} | {c['wall_s']:.0f} | {c['llm_calls']} |")
    if judged:
        r = judged["ratings"]
        lines += ["", f"## The judge ({judged['model']}, {judged['calls']} calls, {judged['tokens']:,} tokens, "
                  f"{judged['wall_s']:.0f} s)", "",
                  f"{judged['judged']} of {judged['asked']} rankings usable ({judged['complete']} complete); "
                  "rank 1 = most believable.", "",
                  "| condition | judged | mean rank | first place | pairwise wins | TrueSkill mu (sigma) | paper mu |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for c, s in r.items():
            lines.append(f"| {c} | {s['judged']} | {_num(s['mean_rank'], '.2f')} | {_num(s['first_rate'], '.0%')} | "
                         f"{_num(s['win_rate'], '.0%')} | {s['mu']:.2f} ({s['sigma']:.2f}) | "
                         f"{PAPER_MU.get(c, '-')} |")
        lines += [f"| {c} (paper only) | - | - | - | - | - | {mu} |" for c, mu in PAPER_MU.items() if c not in r]
        if judged.get("plot"):
            lines += ["", f"![ratings]({judged['plot']})"]
    if emergent:
        lines += ["", *emergent_table(emergent)]
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def emergent_table(m: dict[str, Any]) -> list[str]:
    """The run's emergent behaviour (npc_lab/sim/measure.py, from the interviews the sim asked) beside the paper's."""
    d, g, c = m["diffusion"], m["density"], m["coordination"]
    paper = PAPER["diffusion_party"] if c else PAPER["diffusion_candidacy"]
    rows = [("information diffusion (asked)", f"{d['start']} -> {d['end']} of {d['n']} ({d['end_pct']:.0%})", paper),
            ("network density (asked)", f"{g['start']:.3f} -> {g['end']:.3f}" if g["asked"] else "not asked",
             PAPER["density"])]
    if c:
        rows.append(("coordination", f"{len(c['invited'])} invited, {len(c['invited_attended'])} of them at the place "
                     f"in the window ({len(c['planned_attended'])} with it in a plan)", PAPER["coordination"]))
    return ["## The run's emergent behaviour", "", "| measure | this run | paper |", "| --- | --- | --- |",
            *(f"| {a} | {b} | {p} |" for a, b, p in rows)]


def _num(value: float, fmt: str) -> str:
    return "-" if math.isnan(value) else format(value, fmt)


def ratings_plot(ratings: dict[str, dict[str, float]], path: Path) -> Path | None:
    """Bars of TrueSkill mu per condition, ours (with sigma) beside the paper's; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = list(ratings) + [c for c in PAPER_MU if c not in ratings]
    xs = range(len(names))
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    ax.bar([x - 0.2 for x in xs], [ratings[c]["mu"] if c in ratings else 0 for c in names], 0.4,
           yerr=[ratings[c]["sigma"] if c in ratings else 0 for c in names], label="this run (LLM judge)")
    ax.bar([x + 0.2 for x in xs], [PAPER_MU.get(c, 0) for c in names], 0.4, label="paper (human evaluators)")
    ax.set_xticks(list(xs), [c.replace("_", " ") for c in names], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("TrueSkill mu")
    ax.axhline(25, color="grey", lw=0.5)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
