"""The load test's attention mix and its load-insensitive figures (tools/loadtest.py), without a brain."""

from __future__ import annotations

from collections import Counter

import pytest

from npc_brain.v1 import brain_pb2 as pb
from tools.loadtest import LEVELS, attention_of, capacity, parse_args


def test_the_mix_puts_the_first_in_view_and_spreads_the_crowd_share_over_the_rest() -> None:
    ids = [f"npc{i}" for i in range(10_000)]
    levels = attention_of(ids, 25, 0.95)
    assert Counter(LEVELS[v] for v in levels.values()) == {"in view": 25, "crowd": 9_476, "out of view": 499}
    assert all(levels[i] == pb.ATTENTION_IN_VIEW for i in ids[:25])
    rest = [levels[i] for i in ids[25:125]]
    assert rest.count(pb.ATTENTION_OUT_OF_VIEW) == 5, "spread evenly, not all at the end"
    assert set(attention_of(ids[:3], None, 0.0).values()) == {pb.ATTENTION_UNSPECIFIED}
    assert set(attention_of(ids[:50], 0, 0.0).values()) == {pb.ATTENTION_OUT_OF_VIEW}


def test_capacity_is_the_ask_rate_times_the_cpu_per_decide() -> None:
    # 10,000 NPCs asking every 50 s at 1 ms each need a fifth of a core; two cores serve 2,000 a second.
    assert capacity(0.02, 10_000, 1.0) == {"cpu_s_per_s_needed": 0.2, "free_cores_serve_per_s": 2000,
                                           "free_cores_serve_npcs": 100_000}


def test_a_crowd_share_needs_in_view() -> None:
    for argv in (["--crowd-share", "0.5"], ["--in-view", "3", "--crowd-share", "1.5"], ["--in-view", "-1"]):
        with pytest.raises(SystemExit):
            parse_args(argv)
