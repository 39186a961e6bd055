"""One percentile for every figure: the brain's vitals, `bench` and the real-time bench agree."""

from __future__ import annotations

import random

from brain_server.runtime.vitals import Series, percentile
from npc_lab.realtime import percentiles


def test_percentile_is_the_nearest_rank_at_or_above_q() -> None:
    values = list(range(1, 101))  # 1..100
    random.Random(1).shuffle(values)
    assert (percentile(values, 0.5), percentile(values, 0.99), percentile(values, 1.0)) == (51, 100, 100)
    assert percentile([], 0.99) == 0.0 and percentile([7.0], 0.5) == 7.0


def test_the_real_time_bench_and_the_vitals_report_the_same_figures() -> None:
    rng = random.Random(2)
    values = [rng.expovariate(1 / 20) for _ in range(1000)]
    series = Series()
    for value in values:
        series.add(value)
    lab = percentiles(values)
    assert (lab["p50_ms"], lab["p99_ms"]) == (round(series.spread().p50_ms, 1), round(series.spread().p99_ms, 1))
