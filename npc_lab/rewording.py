"""Reworded prompt sets (issue 42): the brain's templates with their headings said in other words
and other forms, and their sections in another order, so a stand-in that finds things by our
exact headings (not by what they say) shows it: the matrix's results must not move beyond the
seeds' spread under any of them. `npc-lab sim --matrix --rewordings 5` runs each case under each
set (the started brain's NPC_BRAIN_PROMPTS_DIR); `python -m npc_lab.rewording OUT --style N`
writes one set to look at.

What is reworded: every heading (a line ending in ":" followed by lines that are only
placeholders), the order of a run of such sections (a question to answer stays in its place),
and the forms of the dates and clock times in what the brain writes into the placeholders (each
set's `style.json`, `brain_server/prompts/style.py`: "9:15 am", "Tuesday the 14th of February"). The
instructions, the answer's schema and the placeholders stay as they are.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import random
import re

from brain_server.prompts import BUILTIN_DIR
from brain_server.prompts.style import STYLE_FILE

STYLES = 5
_PLACEHOLDER = re.compile(r"\$\w+")
_ONLY_PLACEHOLDERS = re.compile(r"^\s*(\$\w+\s*)+$")
# A line that ends mid-sentence (a word or a comma, not a placeholder): the next line goes on with it, and
# is no heading ("... the activity in a few words\n(e.g. ...), and where it happens: one of these places
# $npc_name knows:" was made "## (e.g. ...)" in set 2: blind31's writer).
_GOES_ON = re.compile(r"(?<!\$)\b[A-Za-z]+,?\s*$|,\s*$")
# Words of headings said otherwise, one list per style (1-5), applied in order, whole words only.
_WORDS: dict[int, list[tuple[str, str]]] = {
    1: [("remembers that may come up", "recalls that might matter here"), ("remembers about", "recalls of"),
        ("remembers that bears on this", "recalls that is relevant"), ("has planned", "intends to do"),
        ("Places", "Locations"), ("knows", "is familiar with"), ("The conversation so far", "Said so far")],
    2: [("What (\\$\\w+) remembers that may come up", "Memories of \\1 that could be relevant"),
        ("What (\\$\\w+) remembers about (\\$\\w+)", "\\1's memories of \\2"),
        ("What (\\$\\w+) has planned", "\\1's schedule"), ("Places (\\$\\w+) knows", "Known locations of \\1"),
        ("The conversation so far", "Transcript up to now")],
    3: [("remembers", "has in mind"), ("may come up", "might be useful"), ("has planned", "has lined up"),
        ("Places", "Spots"), ("The conversation so far", "Dialogue so far")],
    4: [("What (\\$\\w+) remembers that may come up", "Relevant memories (\\1)"),
        ("What (\\$\\w+) remembers about (\\$\\w+)", "Memories (\\1) about \\2"),
        ("What (\\$\\w+) has planned", "Plans (\\1)"), ("Places (\\$\\w+) knows", "Places (\\1)")],
    5: [("What (\\$\\w+) remembers", "Things \\1 can recall"), ("has planned", "is set to do"),
        ("knows", "has been to"), ("The conversation so far", "Earlier in this conversation")],
}


# The dates' and clocks' forms of each set (`style.json`), none of them the brain's own.
STYLE_OF_SET: dict[int, dict[str, str]] = {
    1: {"clock": "12h", "date": "weekday, day month"},
    2: {"clock": "parts of the day", "date": "weekday the day of month"},
    3: {"clock": "12h dotted", "date": "weekday, short month day"},
    4: {"clock": "12h upper", "date": "weekday day short month"},
    5: {"clock": "24h", "date": "weekday the day of month"},
}


def _heading_form(style: int, heading: str) -> str:
    """The heading's form: a colon (1, 3), a markdown title (2), capitals outside placeholders
    (4), square brackets (5)."""
    bare = heading.rstrip().removesuffix(":").rstrip()
    if style == 2:
        return f"## {bare}"
    if style == 4:
        parts = re.split(r"(\$\w+)", bare)
        return "".join(p if p.startswith("$") else p.upper() for p in parts) + ":"
    if style == 5:
        return f"[{bare}]"
    return f"{bare}:"


def reword(text: str, style: int) -> str:
    """`text` (a template) in reworded set `style` (1..STYLES)."""
    if not 1 <= style <= STYLES:
        raise ValueError(f"style {style}: styles are 1 to {STYLES}")
    lines = text.split("\n")
    blocks: list[list[str]] = []  # each a heading with its placeholder lines, or one other line
    i = 0
    while i < len(lines):
        line = lines[i]
        body = []
        j = i + 1
        while j < len(lines) and _ONLY_PLACEHOLDERS.match(lines[j]):
            body.append(lines[j])
            j += 1
        if line.rstrip().endswith(":") and body and not _ONLY_PLACEHOLDERS.match(line) \
                and not (i and _GOES_ON.search(lines[i - 1])):
            heading = line
            for old, new in _WORDS[style]:
                heading = re.sub(rf"(?<!\w){old}(?!\w)", new, heading)
            section = [_heading_form(style, heading), *body]
            # A question and its choices stay where they are, before the instructions that follow them.
            blocks.extend([[line] for line in section] if "?" in line else [section])
            i = j
        else:
            blocks.append([line])
            i += 1
    return "\n".join(line for block in _reordered(blocks, style) for line in block)


def _reordered(blocks: list[list[str]], style: int) -> list[list[str]]:
    """Each run of sections (blank lines between them allowed) in another order, the same for
    a style in every template (seeded by the style)."""
    out: list[list[str]] = []
    run: list[list[str]] = []
    rng = random.Random(style)

    def flush() -> None:
        sections = [b for b in run if len(b) > 1]
        if len(sections) > 1:
            order = sections[:]
            while order == sections:
                rng.shuffle(order)
            it = iter(order)
            out.extend(next(it) if len(b) > 1 else b for b in run)
        else:
            out.extend(run)
        run.clear()

    for block in blocks:
        if len(block) > 1 or (run and not block[0].strip()):
            run.append(block)
        else:
            flush()
            out.append(block)
    flush()
    return out


def write_set(out: Path, style: int, source: Path = BUILTIN_DIR) -> Path:
    """Every template of `source` reworded into `out` (made), with the set's date and clock style;
    returns `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        reworded = reword(text, style)
        if set(_PLACEHOLDER.findall(reworded)) != set(_PLACEHOLDER.findall(text)):
            raise ValueError(f"{path.name}: rewording lost or added a placeholder")
        (out / path.name).write_text(reworded, encoding="utf-8")
    (out / STYLE_FILE).write_text(json.dumps(STYLE_OF_SET[style]) + "\n", encoding="utf-8")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write the reworded templates to")
    parser.add_argument("--style", type=int, default=1, help=f"which set, 1 to {STYLES}")
    args = parser.parse_args()
    print(write_set(args.out, args.style))


if __name__ == "__main__":
    main()
