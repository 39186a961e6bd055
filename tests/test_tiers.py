"""The test tiers' plugin (tests/tiers.py) in a pytest of its own: an unmarked test over the bound
fails and says to mark it, a marked one passes, and a test that starts a brain is marked `brain`."""

from __future__ import annotations

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


def test_an_unmarked_slow_test_fails_and_the_marked_ones_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    # 0.5 s is over a bound of 0.01 s up to a load of 50 per core
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "--unmarked-limit-s", "0.01")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*test_unmarked_and_slow took * s without a slow mark*mark it @pytest.mark.slow*"])


def test_the_fast_tier_leaves_out_tests_that_start_a_brain(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "-m", "not slow and not brain",
                                "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*test_quick", "*test_unmarked_and_slow", "*2/4 tests collected (2 deselected)*"])


def test_only_a_run_of_the_tests_keeps_their_times(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_quick():\n    pass\n")
    kept = pytester.path / ".pytest_cache" / "v" / "npc-brain" / "durations"
    pytester.runpytest("-p", "tests.tiers", "--setup-plan")
    assert not kept.exists()  # every test "took" no time: the next run would order by that
    pytester.runpytest("-p", "tests.tiers")
    assert kept.exists()



def test_the_failed_tests_are_listed_with_whether_they_measure_time(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """tools/test.sh retries alone only the failures that measure time, and only when nothing else failed."""
    pytester.makepyfile("""
import pytest

@pytest.mark.timing
def test_late():
    assert False

@pytest.mark.godot
def test_engine():
    assert False

def test_wrong():
    assert False

@pytest.mark.timing
def test_on_time():
    pass
""")
    listed = pytester.path / "failed.txt"
    monkeypatch.setenv("NPC_BRAIN_FAILURES", str(listed))
    pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "-n", "2").assert_outcomes(passed=1, failed=3)
    assert sorted(listed.read_text().splitlines()) == [
        "other test_the_failed_tests_are_listed_with_whether_they_measure_time.py::test_wrong",
        "timing test_the_failed_tests_are_listed_with_whether_they_measure_time.py::test_engine",
        "timing test_the_failed_tests_are_listed_with_whether_they_measure_time.py::test_late"]

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
    tiers = ("-p", "tests.tiers", "--unmarked-limit-s", "0.01")
    first = pytester.runpytest(*tiers, "-n", "2", "--dist", "loadgroup")
    first.assert_outcomes(passed=6, failed=1)
    first.stdout.fnmatch_lines(["*test_unmarked_and_slow took * s without a slow mark*"])
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

@pytest.mark.timing
@pytest.mark.parametrize("n", range(4))
def test_timed(n):
    ran("timing")
    time.sleep(0.1)
"""


@pytest.mark.slow
def test_round_two_runs_two_engine_lanes_and_the_timing_tests_on_a_third_worker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_lanes=LANES)
    result = pytester.runpytest("-p", "tests.tiers", "-p", "no:cacheprovider", "-n", "3", "--dist", "loadgroup",
                                "--no-loadscope-reorder")
    result.assert_outcomes(passed=10)
    workers: dict[str, set[str]] = {"godot": set(), "timing": set()}
    for line in (pytester.path / "ran").read_text().split("\n"):
        if line:
            kind, worker = line.split()
            workers[kind].add(worker)
    assert len(workers["godot"]) == 2 and len(workers["timing"]) == 1, workers
    assert not workers["godot"] & workers["timing"], workers
