"""Every link from the README and docs/ into this repository leads somewhere: the file exists, and a
`#section` is a heading of that file as GitHub names it (lower case, punctuation dropped, spaces
as hyphens, a repeated heading numbered) or an explicit `<a id>`; a section named in words
(`see "Section" below`) is a heading of the page."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
import re

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
# A section named in words, `see "Section" below`: it must be a heading of the same page.
NAMED = re.compile(r'"([A-Z][^"]{3,80})" (?:below|above)')
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto: ...


def prose(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code spans blanked (a link shown as code
    is not a link)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", lambda m: "`" + " " * (len(m.group()) - 2) + "`", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its text (a link's words, no markup), lower case, without
    punctuation but hyphens and underscores, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The `#fragments` that lead into a page: its headings' slugs, a repeated one numbered -1, -2
    as GitHub does, and explicit `<a id=...>` / `<a name=...>`."""
    text = page.read_text(encoding="utf-8")
    found: set[str] = set(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    seen: Counter[str] = Counter()
    in_code = False
    for line in text.splitlines():
        if FENCE.match(line):
            in_code = not in_code
        elif not in_code and (heading := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)):
            base = slug(heading.group(1))
            found.add(base if not seen[base] else f"{base}-{seen[base]}")
            seen[base] += 1
    return found


def links(page: Path) -> list[str]:
    lines = prose(page.read_text(encoding="utf-8"))
    return [target for line in lines for target in [*INLINE.findall(line), *REFERENCE.findall(line)]
            if not EXTERNAL.match(target)]


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def broken(page: Path) -> list[str]:
    """This page's links into the repository that lead nowhere, each with the reason."""
    found = []
    for target in links(page):
        path, _, fragment = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            found.append(f"{target}: no {shown(destination)}")
        elif fragment and destination.suffix == ".md" and fragment not in anchors(destination):
            found.append(f"{target}: no heading '#{fragment}' in {shown(destination)}")
    named = [name for line in prose(page.read_text(encoding="utf-8")) for name in NAMED.findall(line)]
    return found + [f'"{name}": no such heading here' for name in named if slug(name) not in anchors(page)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_into_the_repository_resolves(page: Path) -> None:
    problems = broken(page)
    assert not problems, f"{shown(page)}: " + "; ".join(problems)


def test_the_checker_finds_a_missing_file_and_a_missing_section(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## The rule for moving NPCs\n\n## Step `one`: go\n\n"
                                       "## Step one go\n")
    page = tmp_path / "page.md"
    page.write_text("See [moving](other.md#the-rule-for-moving-npcs), [step](other.md#step-one-go),\n"
                    "[again](other.md#step-one-go-1), [gone](other.md#moving-npcs), [nothing](missing.md),\n"
                    "[web](https://example.com/x.md) and `[code](nowhere.md)`.\n\n```\n[fenced](nowhere.md)\n```\n"
                    '## Routing\n\nSee "Routing" above and "The rule for moving NPCs" below.\n')
    assert links(page) == ["other.md#the-rule-for-moving-npcs", "other.md#step-one-go", "other.md#step-one-go-1",
                           "other.md#moving-npcs", "missing.md"]
    problems = [line.split(":")[0] for line in broken(page)]
    assert problems == ["other.md#moving-npcs", "missing.md", '"The rule for moving NPCs"']
