"""The suite's ports for processes that bind them themselves come from outside the range the kernel
hands out, and are free when drawn."""

from __future__ import annotations

import random
import socket

from tests import ports


def test_a_drawn_port_is_below_the_kernels_range_and_free() -> None:
    port = ports.unclaimed_port()
    assert 1024 <= port < ports._ephemeral_low()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_a_port_in_use_is_not_drawn() -> None:
    first = ports.unclaimed_port(random.Random(7))
    with socket.socket() as held:
        held.bind(("127.0.0.1", first))
        assert ports.unclaimed_port(random.Random(7)) != first  # the same draws, the taken one passed over
