"""What the brain showed its model, read from a run's recorded requests (npc_lab/sim/exposure.py):
exposure counts, per speaker who knew the news, the social prompts that showed it (in a one-call
conversation, that speaker's own part); leakage counts memory lines shown as the wrong speaker's."""

from __future__ import annotations

from datetime import datetime
import json
from pathlib import Path

from npc_lab.sim.exposure import exposure, leakage, requests, speakers_parts

NAMES = {"ana": "Ana Rook", "bo": "Bo Pell", "cy": "Cy Darn"}
MEMS = {"ana": [{"description": "Ana Rook wants to hold a kite fair on the green on May 5"}],
        "bo": [{"description": "Bo Pell is mending nets"}], "cy": []}


def call(purpose: str, mind: str, user: str) -> dict[str, object]:
    return {"purpose": purpose, "messages": [{"role": "system", "content": f"You are the inner mind of {mind}, a villager."},
                                             {"role": "user", "content": user}]}


def summary(when: str, first: str, second: str, first_lines: str, second_lines: str) -> dict[str, object]:
    return call("conversation_summary", first, f"It is Monday May 4, {when}, at the green.\n"
                f"What {first} remembers that may come up:\n{first_lines}\n\nWhat {first} has planned:\n- (nothing)\n\n"
                f"What {second} remembers that may come up:\n{second_lines}\n\nPlaces {first} knows:\n- the green")


def write(run: Path, calls: list[dict[str, object]]) -> Path:
    run.mkdir()
    (run / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls))
    return run


def test_exposure_counts_each_knowers_own_part_from_when_it_knew(tmp_path: Path) -> None:
    run = write(tmp_path / "run", [
        call("react", "Ana Rook", "It is Monday May 4, 08:00, at the green.\nAna has a kite fair to tell of."),
        call("react", "Ana Rook", "It is Monday May 4, 09:00, at the green.\nBo Pell is mending nets."),
        summary("10:00", "Bo Pell", "Ana Rook", "- [Monday May 4, 07:00] Bo Pell is mending nets",
                "- [Monday May 4, 07:00] Ana Rook wants to hold a kite fair\nAna Rook has news on their mind: the kite fair"),
        call("react", "Bo Pell", "It is Monday May 4, 09:30, at the green.\nNothing about kites here? a kite."),
        call("daily_plan", "Ana Rook", "It is Monday May 4, 07:00. The kite fair."),  # not a social prompt
        call("react", "Cy Darn", "No time in this prompt: kite fair"),
    ])
    known = {"ana": datetime(2026, 5, 4, 7), "bo": datetime(2026, 5, 4, 10)}
    got = exposure(requests(run), known, NAMES, "ana", lambda text: "kite fair" in text)
    assert got is not None
    assert got["host"] == {"prompts": 3, "showed": 2, "share": 2 / 3}  # two reactions and her part of the talk
    assert got["by_npc"]["bo"] == {"prompts": 1, "showed": 0, "share": 0.0}  # his part at 10:00; 09:30 was before
    assert (got["prompts"], got["showed"]) == (4, 2)
    assert exposure(requests(tmp_path), known, NAMES, "ana", lambda text: True) is None  # nothing recorded


def test_leakage_finds_a_line_shown_as_the_wrong_speakers(tmp_path: Path) -> None:
    run = write(tmp_path / "run", [
        summary("10:00", "Bo Pell", "Ana Rook", "- [Monday May 4, 07:00] Bo Pell is mending nets",
                "- [Monday May 4, 07:00] Ana Rook wants to hold a kite fair on the green on May 5"),
        summary("11:00", "Bo Pell", "Ana Rook", "- [Monday May 4, 07:00] Ana Rook wants to hold a kite fair on the green",
                "- (nothing comes to mind)"),
    ])
    got = leakage(requests(run), MEMS, NAMES)
    assert got is not None and (got["lines"], got["leaked"]) == (3, 1)
    assert got["examples"] == ["Bo Pell: Ana Rook wants to hold a kite fair on the green"]


def test_a_group_prompts_parts_are_told_apart() -> None:
    text = ("It is Monday May 4, 10:00.\nWhat Bo Pell has planned:\n- 10:00 nets\nWhat Bo Pell remembers that may "
            "come up:\n- nets\nBo Pell: \"a line of a conversation kept\"\nAna Rook has news on their mind: a fair.\n"
            "What Ana Rook remembers that may come up:\n- the fair\nPlaces Ana Rook knows: the green")
    assert speakers_parts(text) == {"Bo Pell": "- nets\nBo Pell: \"a line of a conversation kept\"",
                                    "Ana Rook": "Ana Rook has news on their mind: a fair.\n- the fair"}
