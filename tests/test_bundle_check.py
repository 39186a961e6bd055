"""`python -m tools.bundle_check FOLDER` as the README says it (a relative folder): it checks a
bundle as a player's machine runs it (`env -i`, its own data folder as the working directory).
A bundle takes 13-15 minutes to build, so the bundle here is a stand-in executable that runs this
checkout's brain against the fake endpoint; the check's own path is the real one. Before, a
relative folder named nothing from the bundle's working directory and the check failed at once."""

from __future__ import annotations

from pathlib import Path
import stat
import sys

import pytest

from brain_server.bundle import executable
from npc_lab.fake_openai import FakeOpenAI
from tools import bundle_check


@pytest.mark.slow
@pytest.mark.brain
def test_the_check_drives_a_bundle_named_by_a_relative_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               fake_llm: FakeOpenAI) -> None:
    folder = tmp_path / "dist" / "npc-brain-stand-in"
    folder.mkdir(parents=True)
    script = executable(folder)
    script.write_text(f"#!/bin/sh\nexport NPC_BRAIN_LLM_BASE_URL={fake_llm.base_url}\n"
                      f"exec {sys.executable} -m brain_server.cli \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.chdir(tmp_path)
    report = bundle_check.check(Path("dist/npc-brain-stand-in"))
    assert report["grpc"]["with_an_action"] == report["grpc"]["residents"] == bundle_check.RESIDENTS
    assert report["connect"]["with_an_action"] == report["connect"]["residents"] == bundle_check.RESIDENTS
    assert report["stopped_with_status"] == 0
