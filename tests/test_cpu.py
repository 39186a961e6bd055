"""tests/cpu.py's meter: a test's live descendants, found through the kernel's lists of children,
are the ones a scan of every process finds."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests import cpu

# A child that spins, starts a grandchild that spins too, and sleeps once both have: counted work
# (no clock), then nothing that moves their counters while they are read.
SPIN = "for _ in range(3_000_000): pass"
FAMILY = f"""
import subprocess, sys
{SPIN}
grandchild = subprocess.Popen([sys.executable, "-c", "import sys, time\\n{SPIN}\\nprint('ready', flush=True); time.sleep(600)"],
                              stdout=subprocess.PIPE, text=True)
grandchild.stdout.readline()
print("ready", flush=True)
sys.stdin.read()
grandchild.kill()
"""


@pytest.mark.skipif(not cpu._LISTS_CHILDREN, reason="this kernel lists no children in /proc")
def test_live_descendants_are_the_ones_a_scan_of_every_process_finds() -> None:
    family = subprocess.Popen([sys.executable, "-c", FAMILY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert family.stdout.readline() == "ready\n"
        assert cpu._live_descendants_s(family.pid) == cpu._scanned_descendants_s(family.pid) > 0
    finally:
        family.stdin.close()
        family.wait(60)
