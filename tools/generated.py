"""The command line of a generated document: write it, or with --check say whether it is current."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_or_check(module: str, description: str, path: Path, generate: Callable[[], str]) -> int:
    """0 once `path` holds `generate()`'s text (written, or found so with --check); 1 if --check finds it stale."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help=f"only say whether {path.name} is up to date")
    text = generate()
    shown = path.relative_to(ROOT)
    if parser.parse_args().check:
        if path.is_file() and path.read_text() == text:
            return 0
        print(f"{shown} is out of date: run .venv/bin/python -m {module}")
        return 1
    path.write_text(text)
    print(f"{module}: wrote {shown}")
    return 0
