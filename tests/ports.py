"""Ports for a process that must bind them itself (a proxy, a brain whose address a page was given
before it started, or again after a kill).

A port bound to 0 and released can be taken by another worker before its owner binds it: the
kernel hands out the same ephemeral range to every bind to port 0 and every outgoing connection,
and in a full suite a server did take one. These ports come from below that range, where neither
lands, at random (two workers rarely draw the same), and each is checked free when drawn."""

from __future__ import annotations

from pathlib import Path
import random
import socket

_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_SPAN = 8192  # how far below the ephemeral range to draw from


def _ephemeral_low() -> int:
    """The lowest port the kernel hands out by itself (49152 where it does not say: the IANA range
    macOS and Windows use)."""
    try:
        return int(_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 49152


def unclaimed_port(rng: random.Random | None = None) -> int:
    """A loopback TCP port nothing listens on now and nothing is handed by the kernel."""
    rng = rng or random.SystemRandom()
    high = _ephemeral_low()
    low = max(1024, high - _SPAN)
    for _ in range(200):
        port = rng.randrange(low, high)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {low}-{high - 1} after 200 draws")
