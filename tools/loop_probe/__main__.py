"""`python -m tools.loop_probe PREFIX.*.json [--top N]`: what the loop probe recorded, per file (a
process): the callbacks that held its loop longest in all, its long turns by what they stepped,
and how late the loop woke (with LOOP_PROBE_LATE=1). See sitecustomize.py beside this."""

from __future__ import annotations

import argparse
from collections import Counter
import json
from pathlib import Path
import statistics
from typing import Any


def report(data: dict[str, Any], top: int) -> str:
    lines = []
    totals = sorted(data["total"], key=lambda t: -t[1])[:top]
    lines.append("| callback | wall s | CPU s | runs |")
    lines.append("| --- | --- | --- | --- |")
    lines += [f"| {name} | {wall:.3f} | {cpu:.3f} | {runs:,} |" for name, wall, cpu, runs in totals]
    long = data["long"]
    by: Counter[str] = Counter(name for _, _, name, _ in long)
    lines.append("")
    lines.append(f"{len(long)} turns over {data['long_ms']:g} ms"
                 + (f", the longest {max(w for w, *_ in long):.1f} ms" if long else ""))
    for name, count in by.most_common(top):
        walls = [w for w, _, n, _ in long if n == name]
        cpus = [c for _, c, n, _ in long if n == name]
        lines.append(f"  {count:>5} x {name}: wall median {statistics.median(walls):.1f} ms, max {max(walls):.1f}; "
                     f"CPU median {statistics.median(cpus):.1f} ms")
    if data["late"]:
        late = sorted(ms for _, ms in data["late"])
        lines.append("")
        lines.append(f"loop late ({len(late)} ticks): p50 {late[len(late) // 2]:.1f} ms, "
                     f"p99 {late[min(len(late) - 1, round(0.99 * (len(late) - 1)))]:.1f} ms, max {late[-1]:.1f} ms")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="the probe's <prefix>.<pid>.json files")
    parser.add_argument("--top", type=int, default=12, help="rows per table (default 12)")
    args = parser.parse_args(argv)
    for path in args.files:
        print(f"## {path}\n\n{report(json.loads(path.read_text(encoding='utf-8')), args.top)}\n")


if __name__ == "__main__":
    main()
