"""The test tiers, a pytest plugin (tests/conftest.py loads it). The fast tier (`tools/test.sh
--fast`: `-m "not slow and not godot and not brain and not timing"`) is the edit loop: unit and in-process tests.
A test that starts a brain server process is marked `brain` here (it uses brain_factory); one over
SLOW_S belongs in the slow tier. An unmarked test that takes UNMARKED_LIMIT_S (SLOW_S with room),
times the machine's load per core when that is over 1, fails, so that the fast tier cannot grow
slow unnoticed; the ones over SLOW_S are listed at the end of the run.

Under pytest-xdist (`-n`, as tools/test.sh runs the suite) the tests of a module with a module-scoped
fixture stay on one worker (`--dist loadgroup`), so the fixture is built once; the Godot tests run
in GODOT_LANES groups, so that no more engines than that run at once; the other `timing` tests
run in one group of their own, one after another beside the engine lanes (tools/test.sh gives
each lane and that group a worker); and each worker runs the longest tests first, as long as
the last run of each took (kept in pytest's cache; for a test the cache has not seen, as in a
fresh clone or CI, as long as tests/durations.json says) or, for a test in neither, as long as
its tier suggests: a long test started last would hold the whole run.

`python -m tests.tiers` refreshes tests/durations.json from the cache after a full run."""

from __future__ import annotations

from collections.abc import Generator
import json
import os
from pathlib import Path
from typing import Any

import pytest

SLOW_S = 5.0
UNMARKED_LIMIT_S = 20.0
TIER_MARKS = ("slow", "godot", "brain")
# The real engine in headless Chromium: builds, boots and plays take minutes on a loaded machine.
GODOT_TIMEOUT_S = 600
# Under xdist, how many engine tests run at once: each is a Chromium and a brain, and their timing
# checks (the first NPC walks within seconds) need the cores that more would take.
GODOT_LANES = 2
# Under xdist, the `timing` tests other than the engine's: one worker, one at a time (they wait on
# clocks and the fake LLM far more than they use the cores).
TIMING_GROUP = "timing"
# A test's expected seconds before the cache has its time, by its longest tier.
GUESS_S = {"godot": 60.0, "slow": 20.0, "brain": 5.0}
DURATIONS_KEY = "npc-brain/durations"
# A file the controller appends the failed tests to ("timing <node id>" or "other <node id>"): tools/test.sh
# runs the tests whose checks measure time (`timing`, and the real engine's, `godot`) that failed under the
# suite's load once more, alone, when nothing else failed.
FAILURES_ENV = "NPC_BRAIN_FAILURES"
# The slow tests' times in the last full run, committed, for a run whose cache has not seen them.
SHIPPED_DURATIONS = Path(__file__).with_name("durations.json")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--unmarked-limit-s", type=float, default=UNMARKED_LIMIT_S,
                     help="fail an unmarked test (no slow, godot or brain mark) over this, times the load per core")


@pytest.hookimpl(tryfirst=True)  # before xdist's, which names each test's group in its node id
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "brain_factory" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.brain)
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
        elif item.get_closest_marker("timing") and not item.get_closest_marker("godot") and not _group(item):
            item.add_marker(pytest.mark.xdist_group(TIMING_GROUP))
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
    took = call.duration
    if took > SLOW_S:  # a user property travels with the report from an xdist worker to the controller
        report.user_properties.append(("unmarked_s", took))
    limit = item.config.getoption("unmarked_limit_s") * load_per_core()
    if took > limit and report.passed:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} took {took:.1f} s without a slow mark (the fast tier's bound is "
                           f"{limit:.0f} s at this load): mark it @pytest.mark.slow, or make it faster")


def load_per_core() -> float:
    """The machine's load (1-minute average) per core, at least 1: how much longer a time bound
    that holds on a quiet machine may take now."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


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
        self.failed: dict[str, bool] = {}  # node id -> whether its checks measure time (`timing`, `godot`)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        nodeid = _without_group(report.nodeid)
        self.took[nodeid] = self.took.get(nodeid, 0.0) + report.duration
        self.unmarked.extend((report.nodeid, s) for k, s in report.user_properties if k == "unmarked_s")
        if report.failed:
            self.failed[nodeid] = "timing" in report.keywords or "godot" in report.keywords

    def pytest_sessionfinish(self) -> None:
        """Lists the failed tests where FAILURES_ENV says, and keeps this run's times for the next run's
        order (the controller writes; workers only read; --setup-plan and --setup-only run no test, so
        their times say nothing)."""
        if (listed := os.environ.get(FAILURES_ENV)) and not hasattr(self.config, "workerinput"):
            with open(listed, "a", encoding="utf-8") as out:
                out.writelines(f"{'timing' if timing else 'other'} {nodeid}\n" for nodeid, timing in self.failed.items())
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
