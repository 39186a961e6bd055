"""The test tiers' plugin (tests/tiers.py) in a pytest of its own: an unmarked test over SLOW_S is
listed as a candidate for the slow mark (whatever the machine's load, it passes), a test that
starts a brain is marked `brain`, and under xdist the engine tests keep to their lanes."""

from __future__ import annotations

import json

import pytest

SUITE = """
import time
import pytest

@pytest.fixture
def brain_factory():
    return None

def test_quick():
    pass

def test_unmarked_and_slow():
    time.sleep(0.5)

@pytest.mark.slow
def test_marked_slow():
    time.sleep(0.5)

def test_starts_a_brain(brain_factory):
    time.sleep(0.5)
"""


def test_an_unmarked_slow_test_is_listed_and_passes(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its outcome is its own checks': how long it took only puts it on the list."""
    monkeypatch.setattr("tests.tiers.SLOW_S", 0.2)
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*unmarked tests over 0 s (candidates for @pytest.mark.slow)*",
                                 "* s  test_an_unmarked_slow_test_is_listed_and_passes.py::test_unmarked_and_slow"])
    assert "test_marked_slow" not in result.stdout.str() and "test_starts_a_brain" not in result.stdout.str()


def test_the_fast_tier_leaves_out_tests_that_start_a_brain(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "-m", "not slow and not brain",
                                "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*test_quick", "*test_unmarked_and_slow", "*2/4 tests collected (2 deselected)*"])


def test_the_fast_tier_leaves_out_every_test_that_cost_more_than_its_cpu_bound(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chosen by the measurement (tests/cpu.json), whatever the test's marks say."""
    measured = pytester.path / "cpu.json"
    name = "test_the_fast_tier_leaves_out_every_test_that_cost_more_than_its_cpu_bound.py"
    measured.write_text(json.dumps({f"{name}::test_quick": 0.1, f"{name}::test_unmarked_and_slow": 1.5}))
    monkeypatch.setattr("tests.tiers.SHIPPED_CPU", measured)
    monkeypatch.setattr("tests.tiers.FAST_CPU_S", 1.0)
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "-m", "not slow and not brain",
                                "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*::test_quick", "*1/4 tests collected (3 deselected)*"])


def test_a_costly_test_that_builds_a_shared_fixture_takes_the_tests_sharing_it_out_of_the_fast_tier(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left alone, the next test would build the fixture (a brain) in the fast tier instead."""
    measured = pytester.path / "cpu.json"
    name = "test_a_costly_test_that_builds_a_shared_fixture_takes_the_tests_sharing_it_out_of_the_fast_tier.py"
    measured.write_text(json.dumps({f"{name}::test_one": 5.0, f"{name}::test_two": 0.1, f"{name}::test_three": 0.1}))
    monkeypatch.setattr("tests.tiers.SHIPPED_CPU", measured)
    pytester.makepyfile(SHARED.replace("def test_three(built_once):", "def test_alone():"))
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "-m", "not slow", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*::test_alone", "*1/3 tests collected (2 deselected)*"])


def test_only_a_run_of_the_tests_keeps_their_times(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_quick():\n    pass\n")
    kept = pytester.path / ".pytest_cache" / "v" / "npc-brain" / "durations"
    pytester.runpytest("-p", "tests.tiers", "--setup-plan")
    assert not kept.exists()  # every test "took" no time: the next run would order by that
    pytester.runpytest("-p", "tests.tiers")
    assert kept.exists()



SHARED = """
import os
import pytest

@pytest.fixture(scope="module")
def built_once():
    with open("built", "a") as out:
        out.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")

def test_one(built_once):
    pass

def test_two(built_once):
    pass

def test_three(built_once):
    pass
"""


@pytest.mark.slow
def test_under_xdist_the_tiers_hold_and_the_longest_tests_run_first(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_suite=SUITE, test_shared=SHARED)
    tiers = ("-p", "tests.tiers")
    first = pytester.runpytest(*tiers, "-n", "2", "--dist", "loadgroup")
    first.assert_outcomes(passed=7)
    # A module-scoped fixture is built once though its tests could have gone to two workers.
    assert len((pytester.path / "built").read_text().split()) == 1
    # The tiers alone would run test_quick before test_unmarked_and_slow; the last run's times put it last.
    ran = [line.split("::")[1].split()[0] for line in pytester.runpytest(*tiers, "-n", "1", "-v", "test_suite.py").outlines
           if line.startswith("[gw") and "::" in line]
    assert ran[-1] == "test_quick", ran


LANES = """
import os
import time
import pytest

def ran(kind):
    with open("ran", "a") as out:
        out.write(kind + " " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")

@pytest.mark.godot
@pytest.mark.parametrize("n", range(6))
def test_engine(n):
    ran("godot")
    time.sleep(0.1)

@pytest.mark.parametrize("n", range(6))
def test_other(n):
    ran("other")
    time.sleep(0.1)
"""


@pytest.mark.slow
def test_the_engine_tests_keep_to_two_lanes_beside_the_rest(pytester: pytest.Pytester) -> None:
    """One round on four workers (tools/test.sh): the engine tests run on two of them (GODOT_LANES
    engines at once, at most), the others wherever there is room."""
    pytester.makepyfile(test_lanes=LANES)
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "-n", "4", "--dist", "loadgroup",
                                "--no-loadscope-reorder")
    result.assert_outcomes(passed=12)
    workers: dict[str, set[str]] = {"godot": set(), "other": set()}
    for line in (pytester.path / "ran").read_text().split("\n"):
        if line:
            kind, worker = line.split()
            workers[kind].add(worker)
    assert len(workers["godot"]) == 2 and workers["other"], workers
