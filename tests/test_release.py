"""What a release promises besides the code: a license, a changelog and one version everywhere."""

from __future__ import annotations

import configparser
from pathlib import Path
import tomllib

import brain_server

ROOT = Path(__file__).resolve().parent.parent


def _pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_license_is_the_apache_license_the_package_declares() -> None:
    text = (ROOT / "LICENSE").read_text()
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert declared == "Apache-2.0"
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the full text, not a pointer to it


def test_the_version_is_written_once() -> None:
    """pyproject.toml holds it; the server reads the installed metadata; the addon must say the same."""
    version = _pyproject_version()
    assert brain_server.__version__ == version
    plugin = configparser.ConfigParser()
    plugin.read(ROOT / "godot_project" / "addons" / "npc_brain" / "plugin.cfg")
    assert plugin["plugin"]["version"].strip('"') == version


def test_the_changelog_has_an_unreleased_section_and_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in text
    assert f"## [{_pyproject_version()}]" in text
