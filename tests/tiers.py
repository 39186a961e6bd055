"""The test tiers, a pytest plugin (tests/conftest.py loads it). The fast tier (`tools/test.sh
--fast`: `-m "not slow and not godot and not brain"`) is the edit loop: unit and in-process tests.
A test that starts a brain server process is marked `brain` here (it uses brain_factory or
module_brain_factory), and one that cost more than FAST_CPU_S CPU seconds in the committed
measurement (tests/cpu.json, written by tests/cpu.py) is marked `slow`: the fast tier is chosen by what its tests cost, not by guesses. An
unmarked one that took over SLOW_S is listed at the end of the run (a list, not a failure: no test's
outcome depends on how busy the machine was, tests/test_no_clocks.py).

Under pytest-xdist (`-n`, as tools/test.sh runs the suite, in one round) the tests of a module with
a module-scoped fixture stay on one worker (`--dist loadgroup`), so the fixture is built once; the
Godot tests run in GODOT_LANES groups, so that no more engines than that run at once; and each
worker runs the longest tests first, as long as the last run of each took (kept in pytest's cache;
for a test the cache has not seen, as in a fresh clone or CI, as long as tests/durations.json says)
or, for a test in neither, as long as its tier suggests: a long test started last would hold the
whole run.

`python -m tests.tiers` refreshes tests/durations.json from the cache after a full run."""

from __future__ import annotations

from collections.abc import Generator
import json
import os
from pathlib import Path
from typing import Any

import pytest

SLOW_S = 5.0
# A test that cost more CPU seconds than this in tests/cpu.json leaves the fast tier (`slow`): 0.4
# until the tests' brains and processes got cheaper (issue 40), when 0.4 let in 1,085 tests, 66 CPU-s.
FAST_CPU_S = 0.3
TIER_MARKS = ("slow", "godot", "brain")
# A test that starts a brain process through one of these (tests/conftest.py) is a `brain` test.
BRAIN_FIXTURES = frozenset({"brain_factory", "module_brain_factory"})
# The real engine in headless Chromium: builds, boots and plays take minutes on a loaded machine.
GODOT_TIMEOUT_S = 600
# Under xdist, how many engine tests run at once: each is a Chromium and a brain, and more would
# stretch their pages' boots past their generous limits on two cores.
GODOT_LANES = 2
# A test's expected seconds before the cache has its time, by its longest tier.
GUESS_S = {"godot": 60.0, "slow": 20.0, "brain": 5.0}
DURATIONS_KEY = "npc-brain/durations"
# The slow tests' times in the last full run, committed, for a run whose cache has not seen them.
SHIPPED_DURATIONS = Path(__file__).with_name("durations.json")
# Each test's CPU seconds as measured (tests/cpu.py), committed.
SHIPPED_CPU = Path(__file__).with_name("cpu.json")


@pytest.hookimpl(tryfirst=True)  # before xdist's, which names each test's group in its node id
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    cost = json.loads(SHIPPED_CPU.read_text()) if SHIPPED_CPU.exists() else {}
    # A module's shared fixture is charged to the test that builds it: were that test left out, the
    # next would build it. So a costly one takes the module's other tests that share it along.
    costly = {i.nodeid.split("::")[0] for i in items if _module_scoped(i) and cost.get(i.nodeid, 0.0) > FAST_CPU_S}
    for item in items:
        if BRAIN_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.brain)
        shares = _module_scoped(item) and item.nodeid.split("::")[0] in costly
        if (cost.get(item.nodeid, 0.0) > FAST_CPU_S or shares) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("godot") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(GODOT_TIMEOUT_S))
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker orders the same collection the same way
        _schedule(config, items)


def _schedule(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Groups (xdist_group) the tests that must share a worker or run one at a time, and sorts the
    collection longest first: a group's tests keep their order and sort by the group's total."""
    cache = getattr(config, "cache", None)  # None with -p no:cacheprovider
    took: dict[str, float] = {**json.loads(SHIPPED_DURATIONS.read_text()),
                              **(cache.get(DURATIONS_KEY, {}) if cache else {})}
    guess = {item.nodeid: took.get(item.nodeid, max((s for m, s in GUESS_S.items() if item.get_closest_marker(m)),
                                                    default=0.0)) for item in items}
    for item in items:
        if _module_scoped(item) and not _group(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    lanes = [0.0] * GODOT_LANES  # the longest engine test into the lane with the least so far
    for item in sorted((i for i in items if i.get_closest_marker("godot") and not _group(i)),
                       key=lambda i: -guess[i.nodeid]):
        lane = lanes.index(min(lanes))
        lanes[lane] += guess[item.nodeid]
        item.add_marker(pytest.mark.xdist_group(f"godot-{lane}"))
    totals: dict[str, float] = {}
    for item in items:
        key = _group(item) or item.nodeid
        totals[key] = totals.get(key, 0.0) + guess[item.nodeid]
    items.sort(key=lambda item: -totals[_group(item) or item.nodeid])


def _group(item: pytest.Item) -> str:
    mark = item.get_closest_marker("xdist_group")
    return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) if mark else ""


def _module_scoped(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(d.scope in ("module", "class", "package")
                                    for defs in info.name2fixturedefs.values() for d in defs)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.when != "call" or any(item.get_closest_marker(m) for m in TIER_MARKS):
        return
    if call.duration > SLOW_S:  # a user property travels with the report from an xdist worker to the controller
        report.user_properties.append(("unmarked_s", call.duration))


def _without_group(nodeid: str) -> str:
    """The node id as collected: xdist's loadgroup appends "@<group>" (after any parameters' "]")."""
    at = nodeid.rfind("@")
    return nodeid[:at] if at > nodeid.rfind("]") else nodeid


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Times(config), "npc-brain-times")


class _Times:
    """In the process that reports (the controller under xdist): each test's time, and the unmarked
    slow ones to list at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.took: dict[str, float] = {}
        self.unmarked: list[tuple[str, float]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = _without_group(report.nodeid)
        self.took[nodeid] = self.took.get(nodeid, 0.0) + report.duration
        self.unmarked.extend((report.nodeid, s) for k, s in report.user_properties if k == "unmarked_s")

    def pytest_sessionfinish(self) -> None:
        """Keeps this run's times for the next run's order (the controller writes; workers only read;
        --setup-plan and --setup-only run no test, so their times say nothing)."""
        cache = getattr(self.config, "cache", None)
        planned = self.config.getoption("setupplan", False) or self.config.getoption("setuponly", False)
        if cache is None or hasattr(self.config, "workerinput") or not self.took or planned:
            return
        cache.set(DURATIONS_KEY, {**cache.get(DURATIONS_KEY, {}), **{k: round(v, 2) for k, v in self.took.items()}})

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.unmarked:
            terminalreporter.section(f"unmarked tests over {SLOW_S:.0f} s (candidates for @pytest.mark.slow)")
            for nodeid, took in sorted(self.unmarked, key=lambda u: -u[1]):
                terminalreporter.line(f"{took:6.1f} s  {nodeid}")


if __name__ == "__main__":  # python -m tests.tiers: keep the last run's slow tests' times for fresh clones
    cached = Path(__file__).resolve().parent.parent / ".pytest_cache" / "v" / DURATIONS_KEY
    took = {**json.loads(SHIPPED_DURATIONS.read_text()), **json.loads(cached.read_text())}
    slow = {nodeid: s for nodeid, s in sorted(took.items()) if s > SLOW_S}
    SHIPPED_DURATIONS.write_text(json.dumps(slow, indent=0) + "\n")
    print(f"{SHIPPED_DURATIONS}: {len(slow)} tests over {SLOW_S:.0f} s")
