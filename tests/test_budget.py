"""The prompt budget drops whole memory list items, lowest-ranked and oldest first, renumbering
numbered lists; fields that are not lists are still cut from the longest."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from string import Template
from typing import Any

from brain_server.model.budget import CUT_MARK, Bullets, Item, fit_prompt
from brain_server.model.trace import Trace

TEMPLATE = Template("About $name.\n$memories\nNow: $now")


def render(variables: Mapping[str, Any]) -> list[dict[str, str]]:
    return [{"role": "user", "content": TEMPLATE.substitute(variables)}]


def item(i: int, score: float, length: int = 200) -> Item:
    return Item(f"memory {i} " + "x" * length, (score, float(i)))


def test_whole_items_go_lowest_scored_then_oldest_and_the_numbers_follow() -> None:
    """Ten numbered memories, oldest first: the budget takes the low scores (and of equal scores
    the oldest) whole, renumbers 1..k, and `kept` says which were shown."""
    scores = [0.9, 0.1, 0.5, 0.1, 0.8, 0.5, 0.7, 0.2, 0.95, 0.6]
    memories = Bullets([item(i, s) for i, s in enumerate(scores)], numbered=True)
    variables = {"name": "Isabella", "memories": memories, "now": "the party"}
    full = len(render(variables)[0]["content"].encode())
    t = Trace(npc_id="a", kind="test", game_time=datetime(2026, 2, 13, tzinfo=UTC))
    [message] = fit_prompt(render, variables, full - 900, "test", t)
    text = message["content"]
    assert len(text.encode()) <= full - 900 and CUT_MARK not in text
    assert memories.kept == [0, 4, 6, 8, 9], "0.1, 0.1, 0.2, then of the two 0.5 the older (2) before 5"
    shown = [line for line in text.splitlines() if line[:1].isdigit()]
    assert [line.split(".")[0] for line in shown] == [str(n) for n in range(1, len(shown) + 1)]
    assert [int(line.split()[2]) for line in shown] == memories.kept, "number n shows items[kept[n - 1]]"
    assert text.startswith("About Isabella.") and text.endswith("Now: the party")
    assert any("dropped" in n and "memories" in n for n in t.notes)


def test_a_list_keeps_one_item_and_then_the_longest_fields_are_cut() -> None:
    memories = Bullets([item(i, 0.5) for i in range(4)])
    variables = {"name": "Isabella " + "y" * 2000, "memories": memories, "now": "noon"}
    [message] = fit_prompt(render, variables, 600, "test", None)
    text = message["content"]
    assert len(text.encode()) <= 600 and memories.kept == [3], "of equal scores the newest stays"
    assert CUT_MARK in text and "memory 3" in text


def test_within_budget_nothing_changes() -> None:
    memories = Bullets([item(i, 0.5, 10) for i in range(3)])
    variables = {"name": "Isabella", "memories": memories, "now": "noon"}
    assert fit_prompt(render, variables, 10_000, "test", None) == render(variables)
    assert memories.kept == [0, 1, 2] and str(memories).startswith("- memory 0")
    assert str(Bullets([])) == "- (nothing comes to mind)"


def test_a_list_fitted_again_to_a_tighter_budget_starts_from_every_item() -> None:
    """A context window fits a prompt in rounds, each to a tighter byte budget: the second round
    raised IndexError on a list the first had cut (its `kept` said fewer than it held), and every
    background call failed under a 4,096-token window (the day plan never made, the status revised
    each Decide). Each fit starts from the whole list; `kept` says what the last fit showed."""
    render = lambda v: [{"role": "user", "content": f"{v['persona']}\n{v['memories']}"}]  # noqa: E731
    memories = Bullets([Item(f"memory {i} " * 5, (i, i)) for i in range(20)])
    variables = {"persona": "Name: Ann Lee.", "memories": memories}
    fit_prompt(render, variables, 1000, "test", None)
    wider = list(memories.kept)
    [message] = fit_prompt(render, variables, 600, "test", None)
    assert len(message["content"].encode()) <= 600 and set(memories.kept) < set(wider)
    assert message["content"].endswith(f"- {memories.items[19].text}")
    fit_prompt(render, variables, 100_000, "test", None)
    assert memories.kept == list(range(20))


def test_the_instructions_a_call_chooses_are_never_cut() -> None:
    """A turn's rules are placeholders now, chosen per call (`turn_rules.rules`): over the budget the other
    fields are cut, the rules kept whole as the template's own words are."""
    rules = " If Ann has news on her mind, she brings it up. " * 10
    render = lambda v: [{"role": "user", "content": f"{v['persona']}\n{v['telling']}\n{v['schedule']}"}]  # noqa: E731
    variables = {"persona": "Name: Ann Lee.", "telling": rules, "schedule": "- 09:00 baking " * 60}
    [message] = fit_prompt(render, variables, 700, "test", None)
    assert rules in message["content"] and CUT_MARK in message["content"] and len(message["content"].encode()) <= 700
