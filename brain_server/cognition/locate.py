"""Choosing where an activity happens (paper section 4.3: sector -> arena -> object), and
repairing any address the LLM made up to the closest one the NPC really knows, so Godot is
never sent a place that does not exist."""

from __future__ import annotations

from collections.abc import Sequence
import difflib


def repair_address(proposed: str, known: Sequence[str], fallback: str) -> str:
    """`proposed` if known, else the most similar known address, else `fallback`."""
    if proposed in known:
        return proposed
    close = difflib.get_close_matches(proposed, known, n=1, cutoff=0.4)
    return close[0] if close else fallback
