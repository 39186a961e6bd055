"""The addon's scripts as gdlint reads them: no check silenced anywhere (the World's public surface is
split into its `grid` and `places` helpers instead of a max-public-methods suppression)."""

from __future__ import annotations

from pathlib import Path

ADDON = Path(__file__).resolve().parent.parent / "godot_project" / "addons" / "npc_brain"


def test_no_addon_script_silences_gdlint() -> None:
    scripts = sorted(ADDON.rglob("*.gd"))
    assert len(scripts) > 40, scripts
    silenced = [f"{path.relative_to(ADDON)}:{number}: {line.strip()}"
                for path in scripts
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if "gdlint:" in line]
    assert not silenced, silenced
