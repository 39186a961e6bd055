"""One percentile for every figure: the brain's vitals, `bench` and the real-time bench agree."""

from __future__ import annotations

import random

from brain_server.runtime.vitals import LOOP_TICK_S, Series, Vitals, percentile
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


def test_the_loop_s_lateness_is_read_over_its_last_minute_of_ticks() -> None:
    """Issue 44: the loop's lateness kept 2,000 ticks, 100 s and more, so a load test's minute was
    read together with the town's day plans landing before it. Now the last minute's ticks only."""
    late = Vitals().loop_late
    for _ in range(600):  # half a minute of plans landing: 80 ms late each tick
        late.add(80.0)
    for _ in range(round(60 / LOOP_TICK_S)):  # then a minute at 2 ms
        late.add(2.0)
    assert (late.count, late.spread().p99_ms, late.spread().max_ms) == (1800, 2.0, 2.0)
