"""The test tiers, a pytest plugin (tests/conftest.py loads it). The fast tier (`tools/test.sh
--fast`: `-m "not slow and not godot and not brain"`) is the edit loop: unit and in-process tests.
A test that starts a brain server process is marked `brain` here (it uses brain_factory); one over
SLOW_S belongs in the slow tier. An unmarked test that takes UNMARKED_LIMIT_S (SLOW_S with room),
times the machine's load per core when that is over 1, fails, so that the fast tier cannot grow
slow unnoticed; the ones over SLOW_S are listed at the end of the run."""

from __future__ import annotations

from collections.abc import Generator
import os
from typing import Any

import pytest

SLOW_S = 5.0
UNMARKED_LIMIT_S = 20.0
TIER_MARKS = ("slow", "godot", "brain")
# The real engine in headless Chromium: builds, boots and plays take minutes on a loaded machine.
GODOT_TIMEOUT_S = 600
_UNMARKED = pytest.StashKey[list[tuple[str, float]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--unmarked-limit-s", type=float, default=UNMARKED_LIMIT_S,
                     help="fail an unmarked test (no slow, godot or brain mark) over this, times the load per core")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "brain_factory" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.brain)
        if item.get_closest_marker("godot") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(GODOT_TIMEOUT_S))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.when != "call" or any(item.get_closest_marker(m) for m in TIER_MARKS):
        return
    took = call.duration
    if took > SLOW_S:
        item.config.stash.setdefault(_UNMARKED, []).append((item.nodeid, took))
    limit = item.config.getoption("unmarked_limit_s") * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    if took > limit and report.passed:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} took {took:.1f} s without a slow mark (the fast tier's bound is "
                           f"{limit:.0f} s at this load): mark it @pytest.mark.slow, or make it faster")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if unmarked := config.stash.get(_UNMARKED, []):
        terminalreporter.section(f"unmarked tests over {SLOW_S:.0f} s (candidates for @pytest.mark.slow)")
        for nodeid, took in sorted(unmarked, key=lambda u: -u[1]):
            terminalreporter.line(f"{took:6.1f} s  {nodeid}")
