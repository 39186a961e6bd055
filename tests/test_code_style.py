"""Python code passes ruff (pyflakes, bugbear, pyupgrade, import order) as configured in pyproject."""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_is_clean() -> None:
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run([str(ruff), "check", "brain_server", "npc_lab", "tools", "tests"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_server_never_imports_the_lab_or_the_tools() -> None:
    """The brain is what a game runs: the lab (sim, eval, bench, the fake endpoint) and the developer
    tools drive it from outside. Only the command line offers the lab's commands, importing them lazily."""
    offenders = []
    for path in sorted((ROOT / "brain_server").rglob("*.py")):
        if path.name == "cli.py" and path.parent.name == "brain_server":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            words = line.split()
            if words[:1] in (["import"], ["from"]) and words[1].split(".")[0] in ("npc_lab", "tools"):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
