"""A model client a test leaves behind cannot log into a later test (tests/clients_closed.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The first test leaves a client that used a connection in a reference cycle, its loop closed; the
# second collects garbage while its own loop runs, as the collector may at any allocation.
SUITE = '''
import asyncio, gc
import openai
from npc_lab.fake_openai import FakeOpenAI

def test_leaves_a_client_in_a_cycle():
    with FakeOpenAI() as fake:
        client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="k")
        client.cycle = client
        async def use():
            await client.models.list()
        asyncio.run(use())

def test_collects_while_its_loop_runs(caplog):
    async def collect():
        gc.collect()
        await asyncio.sleep(0.05)
    asyncio.run(collect())
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
'''

HELD = '''
import openai
KEPT = []

def test_keeps_a_client_open():
    KEPT.append(openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k"))
'''


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


@pytest.mark.parametrize("guarded", [True, False], ids=["guarded", "unguarded"])
def test_a_client_left_in_a_cycle_logs_nothing_into_the_next_test(pytester: pytest.Pytester, guarded: bool) -> None:
    pytester.makepyfile(SUITE)
    plugin = ["-p", "tests.clients_closed"] if guarded else []
    result = pytester.runpytest_subprocess(*plugin, "-p", "no:cacheprovider", "-p", "no:randomly")
    if guarded:
        result.assert_outcomes(passed=2)
    else:  # what the suite met without it (test_logs, once)
        result.assert_outcomes(passed=1, failed=1)


def test_a_client_that_outlives_its_test_fails_that_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(HELD)
    result = pytester.runpytest_subprocess("-p", "tests.clients_closed", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*1 model client(s) opened by this test outlive it*"])
