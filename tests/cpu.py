"""Each test's CPU seconds, a pytest plugin (tests/conftest.py loads it): the machine is shared, so
wall times say how busy it was; CPU seconds say what a test costs.

A test's figure is the CPU its process spent from the start of its set-up to the end of its
teardown, plus that of every process it started: the ones already reaped (RUSAGE_CHILDREN: a brain
stopped, a Chromium closed) and the ones still running (a module's brain, a session's browser: read
from /proc, with their own reaped children). A module- or session-scoped fixture is charged to the
test that builds it and the one that tears it down. Under pytest-xdist each worker measures its
tests and the controller gathers them.

Every run prints the TOP costliest tests and keeps all its figures in pytest's cache;
`--cpu-json PATH` also writes them to PATH, and `python -m tests.cpu` turns the cache into
tests/cpu.json, the committed measurement the fast tier is chosen by (tests/tiers.py)."""

from __future__ import annotations

from collections.abc import Generator
import json
import os
from pathlib import Path
import resource
from typing import Any

import pytest

from tests.tiers import _without_group

TOP = 30
CPU_KEY = "npc-brain/cpu"
SHIPPED_CPU = Path(__file__).with_name("cpu.json")
_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def _times(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its reaped children), or None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2:].split()  # the name in parentheses may hold spaces
    return int(fields[1]), sum(int(f) for f in fields[11:15]) * _TICK_S


def _proc_times() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds of the process and its reaped children), from /proc."""
    return {int(name): times for name in os.listdir("/proc") if name.isdigit() and (times := _times(int(name)))}


def _scanned_descendants_s(root: int) -> float:
    """_live_descendants_s from a scan of every process (where the kernel lists no children)."""
    procs = _proc_times()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        total += procs[pid][1]
        todo.extend(children.get(pid, ()))
    return total


def _children(pid: int) -> list[int]:
    """pid's live children, as its threads' /proc/PID/task/TID/children list them."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:  # gone since its parent listed it
        return found
    for tid in tasks:
        try:
            found.extend(int(child) for child in Path(f"/proc/{pid}/task/{tid}/children").read_bytes().split())
        except OSError:
            continue
    return found


_LISTS_CHILDREN = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists()


def _live_descendants_s(root: int) -> float:
    """CPU seconds of root's live descendants and their reaped children. Read from their
    own /proc entries, found through the kernel's lists of children: a scan of every process on
    the machine cost 7 ms, twice a test (10 CPU-s of the fast tier's 738 tests, issue 40)."""
    if not _LISTS_CHILDREN:
        return _scanned_descendants_s(root)
    total, todo = 0.0, _children(root)
    while todo:
        pid = todo.pop()
        if times := _times(pid):  # else it ended since its parent listed it (counted once reaped)
            total += times[1]
            todo.extend(_children(pid))
    return total


def cpu_s() -> float:
    """CPU seconds of this process, its reaped children and its live descendants so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime + _live_descendants_s(os.getpid())


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-json", metavar="PATH", help="write each test's CPU seconds to PATH (tests/cpu.py)")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Meter(config), "npc-brain-cpu")


class _Meter:
    """In a process that runs tests: each one's CPU, sent with its teardown report. In the process
    that reports (the controller under xdist): the figures gathered, kept and printed."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.started = 0.0
        self.spent: dict[str, float] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self) -> None:
        self.started = cpu_s()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        outcome = yield
        if call.when == "teardown":  # a user property travels with the report from a worker to the controller
            outcome.get_result().user_properties.append(("cpu_s", cpu_s() - self.started))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, spent in report.user_properties:
            if key == "cpu_s":
                self.spent[_without_group(report.nodeid)] = round(spent, 2)

    def pytest_sessionfinish(self) -> None:
        if hasattr(self.config, "workerinput") or not self.spent:
            return
        cache = getattr(self.config, "cache", None)  # None with -p no:cacheprovider
        if cache is not None:
            cache.set(CPU_KEY, {**cache.get(CPU_KEY, {}), **self.spent})
        if path := self.config.getoption("cpu_json"):
            Path(path).write_text(json.dumps(dict(sorted(self.spent.items())), indent=0) + "\n")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.spent:
            return
        terminalreporter.section(f"CPU seconds: {sum(self.spent.values()):.0f} in {len(self.spent)} tests, "
                                 f"the {min(TOP, len(self.spent))} costliest (tests/cpu.py)")
        for nodeid, spent in sorted(self.spent.items(), key=lambda s: -s[1])[:TOP]:
            terminalreporter.line(f"{spent:7.1f}  {nodeid}")


if __name__ == "__main__":  # python -m tests.cpu: the cache's figures become the committed measurement
    cached = Path(__file__).resolve().parent.parent / ".pytest_cache" / "v" / CPU_KEY
    spent = {**json.loads(SHIPPED_CPU.read_text() if SHIPPED_CPU.exists() else "{}"),
             **json.loads(cached.read_text())}
    SHIPPED_CPU.write_text(json.dumps(dict(sorted(spent.items())), indent=0) + "\n")
    print(f"{SHIPPED_CPU}: {len(spent)} tests, {sum(spent.values()):.0f} CPU-s")
