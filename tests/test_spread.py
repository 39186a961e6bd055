"""`npc-lab bench spread`: runs of `bench realtime` pooled per side, and after minus before with an
interval that says whether a change moved the tail."""

from __future__ import annotations

import json
from pathlib import Path
import random

import pytest

from npc_lab import bench, spread
from npc_lab.realtime import Calls, Reply


def _interval(result: dict, side: str, what: str) -> tuple[float, float]:
    """An interval the comparison reports: of seeded, made-up latencies, never a clock's."""
    low, high = result[side][what]["interval"] if side == "after_minus_before" else result[side][what]
    return low, high


def _runs(rng: random.Random, shift: float, runs: int = 4, n: int = 250) -> list[list[float]]:
    """Runs of Decide latencies: mostly 2-5 ms, a tail to ~12, moved by shift."""
    return [[rng.uniform(2, 5) + (rng.expovariate(0.5) if rng.random() < 0.05 else 0.0) + shift
             for _ in range(n)] for _ in range(runs)]


def test_two_sides_drawn_alike_differ_by_an_interval_that_holds_zero() -> None:
    rng = random.Random(1)
    result = spread.compare(_runs(rng, 0.0), _runs(rng, 0.0), draws=400)
    for q in spread.QUANTILES:
        low, high = _interval(result, "after_minus_before", f"p{q}_ms")
        assert low <= 0.0 <= high, (q, low, high)
    assert result["before"]["decides"] == result["after"]["decides"] == 1000
    assert len(result["before"]["run_p99_ms"]) == 4


def test_a_tail_moved_by_three_ms_is_told_apart_and_its_sign_is_right() -> None:
    rng = random.Random(2)
    result = spread.compare(_runs(rng, 0.0), _runs(rng, 3.0), draws=400)
    low, high = _interval(result, "after_minus_before", "p99_ms")
    assert 0.0 < low <= 3.0 <= high + 1.0, (low, high)
    assert _interval(result, "before", "p50_interval_ms")[1] < _interval(result, "after", "p50_interval_ms")[0]


def test_a_run_that_stalled_widens_its_sides_interval_more_than_its_samples_alone_would() -> None:
    """The runs are drawn, not only their Decides: one run slow throughout makes the pooled p99's
    interval wide, since a redraw may take it twice or not at all."""
    rng = random.Random(3)
    steady = _runs(rng, 0.0)
    stalled = [*_runs(rng, 0.0, runs=3), [ms + 8.0 for ms in _runs(rng, 0.0, runs=1)[0]]]
    width = {name: (lambda i: i[1] - i[0])(_interval(spread.compare(runs, steady, draws=400), "before", "p99_interval_ms"))
             for name, runs in (("steady", steady), ("stalled", stalled))}
    assert width["stalled"] > 2 * width["steady"], width


def test_the_realtime_report_keeps_every_answered_decide_in_order() -> None:
    calls = Calls()
    for ms in (3.25, 1.5, 9.0):
        calls.add(Reply(status="", message=None, ms=ms))
    calls.add(Reply(status="", message=None, ms=0.0, timed_out=True))
    report = calls.report()
    assert report["samples_ms"] == [3.25, 1.5, 9.0]
    assert report["count"] == 3


def _write_run(folder: Path, decide: dict[str, object]) -> Path:
    folder.mkdir(parents=True)
    (folder / "bench-realtime.json").write_text(json.dumps({"bench": "realtime", "result": {"decide": decide}}))
    return folder


def test_the_command_prints_a_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(4)
    folders = {side: [_write_run(tmp_path / f"{side}{i}", {t: {"samples_ms": run} for t, run in
                                                          zip(spread.TRANSPORTS, _runs(rng, shift, runs=2, n=40), strict=True)})
                      for i in range(3)] for side, shift in (("before", 0.0), ("after", 1.0))}
    bench.main(["spread", "--before", *map(str, folders["before"]), "--after", *map(str, folders["after"]),
                "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert "| connect | after - before |" in printed and "| grpc | before | 3 |" in printed
    written = json.loads((tmp_path / "out" / "bench-spread.json").read_text())["result"]
    assert written["grpc"]["after"]["decides"] == 120
    assert written["connect"]["after_minus_before"]["p50_ms"]["interval"][0] > 0


def test_a_run_made_before_samples_were_kept_is_refused_with_what_to_do(tmp_path: Path) -> None:
    old = _write_run(tmp_path / "old", {t: {"count": 3, "p99_ms": 9.0} for t in spread.TRANSPORTS})
    new = _write_run(tmp_path / "new", {t: {"samples_ms": [1.0, 2.0]} for t in spread.TRANSPORTS})
    with pytest.raises(SystemExit, match="no samples_ms for grpc, connect.*run it again"):
        bench.main(["spread", "--before", str(old), "--after", str(new), "--out", str(tmp_path / "out")])
    with pytest.raises(SystemExit, match="name the runs of each side"):
        bench.main(["spread", "--before", str(new), "--out", str(tmp_path / "out")])
    with pytest.raises(SystemExit, match="not the output of `npc-lab bench realtime`"):
        bench.main(["spread", "--before", str(tmp_path), "--after", str(new), "--out", str(tmp_path / "out")])
