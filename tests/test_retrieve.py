"""Retrieval scoring: the paper's weighted sum of min-max normalised recency, importance, relevance;
and the ablations, which take memory kinds out of reach inside Qdrant."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
import itertools
import random
import uuid

import pytest

from brain_server.cognition.retrieve import RetrievalWeights, min_max, score, unreachable_kinds
from brain_server.config import Settings
from brain_server.model.memory import MemoryKind, MemoryNode, ScoredNode
from brain_server.persistence.storage import open_store

NOW = datetime(2026, 2, 13, 12, tzinfo=UTC)


def node(description: str, importance: int, hours_ago: float) -> MemoryNode:
    when = NOW - timedelta(hours=hours_ago)
    return MemoryNode(npc_id="a", kind=MemoryKind.OBSERVATION, description=description, importance=importance,
                      created=when, last_accessed=when)


def test_min_max_scales_to_unit_range_and_flattens_constants() -> None:
    assert min_max([2.0, 4.0, 6.0]) == [0.0, 0.5, 1.0]
    assert min_max([3.0, 3.0]) == [0.5, 0.5]


def test_each_component_decides_when_it_alone_is_weighted() -> None:
    fresh = ScoredNode(node=node("fresh", 1, 0), similarity=0.1)
    poignant = ScoredNode(node=node("poignant", 10, 48), similarity=0.2)
    relevant = ScoredNode(node=node("relevant", 2, 24), similarity=0.9)
    candidates = [fresh, poignant, relevant]
    for weights, winner in (
        (RetrievalWeights(recency=1, importance=0, relevance=0), "fresh"),
        (RetrievalWeights(recency=0, importance=1, relevance=0), "poignant"),
        (RetrievalWeights(recency=0, importance=0, relevance=1), "relevant"),
    ):
        assert score(candidates, NOW, "q", weights)[0].node.description == winner


def test_scores_are_the_weighted_sum_of_normalised_components() -> None:
    weights = RetrievalWeights(recency=0.5, importance=2, relevance=3, decay_per_hour=0.99)
    candidates = [ScoredNode(node=node(f"m{i}", i + 1, i * 5), similarity=0.1 * i) for i in range(5)]
    records = score(candidates, NOW, "q", weights)
    for r in records:
        assert 0 <= r.recency <= 1 and 0 <= r.importance <= 1 and 0 <= r.relevance <= 1
        assert r.score == pytest.approx(0.5 * r.recency + 2 * r.importance + 3 * r.relevance)
    assert [r.score for r in records] == sorted((r.score for r in records), reverse=True)
    newest = next(r for r in records if r.node.description == "m0")
    assert newest.recency == 1.0 and newest.importance == 0.0 and newest.relevance == 0.0


def test_recency_decays_exponentially_per_game_hour() -> None:
    weights = RetrievalWeights(recency=1, importance=0, relevance=0, decay_per_hour=0.5)
    candidates = [ScoredNode(node=node(f"h{h}", 5, h), similarity=0.0) for h in (0, 1, 2)]
    by_name = {r.node.description: r.recency for r in score(candidates, NOW, "q", weights)}
    # raw recency 1, 0.5, 0.25 -> normalised 1, 1/3, 0
    assert by_name == pytest.approx({"h0": 1.0, "h1": 1 / 3, "h2": 0.0})


def test_top_k_limits_and_empty_input() -> None:
    candidates = [ScoredNode(node=node(f"m{i}", 5, i), similarity=0.5) for i in range(10)]
    assert len(score(candidates, NOW, "q", RetrievalWeights(top_k=3))) == 3
    assert score([], NOW, "q", RetrievalWeights()) == []


@pytest.mark.parametrize("backend", ["edge", "qdrant-client local"])
def test_ablated_kinds_are_out_of_reach_inside_qdrant(backend: str, stream, tmp_path, minilm) -> None:
    """The paper's ablations: retrieval (embedded engine and qdrant-client alike) never returns
    the ablated kinds, and the candidate pool is filled with reachable memories only."""
    if backend != "edge":
        stream.store = open_store(Settings(qdrant_path=tmp_path / "local"), minilm.dim)
    about_cafe = "Isabella is at Hobbs Cafe"
    nodes = [MemoryNode(npc_id="a", kind=MemoryKind.OBSERVATION, description=f"{about_cafe} serving coffee {i}",
                        created=NOW, last_accessed=NOW) for i in range(12)]
    nodes += [MemoryNode(npc_id="a", kind=kind, description=f"{text} about Hobbs Cafe", created=NOW,
                         last_accessed=NOW, predicate=predicate)
              for kind, text, predicate in ((MemoryKind.CHAT, "a conversation with Isabella", "chatted with"),
                                            (MemoryKind.THOUGHT, "Isabella seems to love the cafe", "reflects on"),
                                            (MemoryKind.THOUGHT, "Isabella wants a party at the cafe", "remembers"),
                                            (MemoryKind.PLAN, "plan to meet Isabella", "plans"))]
    reflection, memo = nodes[13].id, nodes[14].id

    def ids(ablate: set[str], top_k: int = 3) -> set[str]:
        stream.weights = RetrievalWeights(top_k=top_k, exclude=unreachable_kinds(ablate), ablate=frozenset(ablate))
        return {r.node.id for r in asyncio.run(stream.retrieve("a", about_cafe, NOW, None))}

    def kinds(ablate: set[str]) -> set[MemoryKind]:
        return {n.kind for n in nodes if n.id in ids(ablate)}

    try:
        asyncio.run(stream.remember("a", None, nodes, None, rate=False))
        assert kinds(set()) == {MemoryKind.OBSERVATION}  # the twelve nearest crowd out the rest at top 3
        assert kinds({"reflection", "planning"}) == {MemoryKind.OBSERVATION}
        # observation takes what was heard: conversations and their memos (whispers alike)
        assert ids({"observation"}) == {reflection, nodes[15].id}
        # reflection takes only the reflection: the memo is no reflection
        reachable = ids({"reflection"}, top_k=20)
        assert reachable == {n.id for n in nodes} - {reflection} and memo in reachable
        assert ids({"observation", "reflection"}) == {nodes[15].id}
        assert ids({"observation", "planning"}) == {reflection}
        assert ids({"observation", "reflection", "planning"}) == set()
    finally:
        if backend != "edge":
            stream.store.close()


def test_ablate_reads_a_comma_separated_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NPC_BRAIN_ABLATE", "reflection, planning")
    assert Settings().ablate == {"reflection", "planning"}
    assert unreachable_kinds(Settings().ablate) == {MemoryKind.PLAN}, "reflections are thoughts, not all thoughts"
    monkeypatch.setenv("NPC_BRAIN_ABLATE", "")
    assert Settings().ablate == frozenset()
    monkeypatch.setenv("NPC_BRAIN_ABLATE", "memory")
    with pytest.raises(ValueError):
        Settings()


@pytest.fixture(params=["edge", "qdrant-client local", "qdrant server (REST stand-in)"])
def any_store(request: pytest.FixtureRequest, stream, tmp_path, minilm):
    """The stream on each backend: embedded Edge, qdrant-client local mode, qdrant-client over REST."""
    if request.param == "qdrant-client local":
        stream.store = open_store(Settings(qdrant_path=tmp_path / "local"), minilm.dim)
    elif request.param.startswith("qdrant server"):
        from tools.qdrant_standin import QdrantStandIn  # imports qdrant-client: not at collection

        standin = QdrantStandIn().start()
        request.addfinalizer(standin.stop)
        stream.store = open_store(Settings(qdrant_url=standin.url), minilm.dim)
    yield stream
    if request.param != "edge":
        stream.store.close()


def test_a_recent_important_memory_far_from_the_query_is_retrieved(any_store) -> None:
    """The whole stream is scored, not the query's nearest neighbours: an hour-old, poignant memory
    about something else beats 150 close but day-old, mundane ones (the paper's weights, all 1)."""
    stream = any_store
    close = [MemoryNode(npc_id="a", kind=MemoryKind.OBSERVATION, importance=1,
                        description=f"Klaus Mueller is reading a book about gentrification, page {i}",
                        created=NOW - timedelta(hours=30, minutes=i), last_accessed=NOW - timedelta(hours=30, minutes=i))
                 for i in range(150)]
    far = MemoryNode(npc_id="a", kind=MemoryKind.CHAT, importance=9,
                     description="Isabella Rodriguez is throwing a Valentine's Day party at Hobbs Cafe tomorrow at 5 pm",
                     created=NOW - timedelta(hours=1), last_accessed=NOW - timedelta(hours=1))
    asyncio.run(stream.remember("a", None, [*close, far], None, rate=False))
    records = asyncio.run(stream.retrieve("a", "Klaus Mueller reading his book", NOW, None))
    assert len(records) == 30
    assert records[0].node.id == far.id
    assert records[0].recency == 1.0 and records[0].importance == 1.0


@pytest.mark.slow  # every memory scored in Python against each backend: 10-50 s on a loaded machine
def test_retrieval_in_qdrant_equals_scoring_every_memory_in_python(any_store) -> None:
    """The formula Qdrant computes ranks exactly as the paper's score computed in Python over every
    memory of the NPC (min-max over the whole stream), with any weights, kind filter and ablation."""
    stream = any_store
    rng = random.Random(7)
    topics = ["the party at Hobbs Cafe", "the mayoral election", "painting in the park", "a chemistry lecture",
              "breakfast at home", "the supply store's inventory", "a walk by the river", "a poem about spring"]
    nodes = []
    for i in range(300):
        created = NOW - timedelta(minutes=rng.randrange(0, 4 * 24 * 60))
        nodes.append(MemoryNode(
            npc_id="a", kind=rng.choice(list(MemoryKind)), importance=rng.randint(1, 10),
            description=f"{rng.choice(topics)}, {rng.choice(topics)} (note {i})", created=created,
            last_accessed=min(NOW, created + timedelta(minutes=rng.randrange(0, 600)))))
    nodes.append(MemoryNode(npc_id="b", kind=MemoryKind.OBSERVATION, importance=10, description="the party",
                            created=NOW, last_accessed=NOW))
    asyncio.run(stream.remember("a", None, nodes[:150], None, rate=False))
    asyncio.run(stream.remember("a", None, nodes[150:], None, rate=False))
    cases = [(RetrievalWeights(), None), (RetrievalWeights(recency=0.5, importance=2, relevance=3), None),
             (RetrievalWeights(decay_per_hour=0.99, top_k=10), MemoryKind.OBSERVATION),
             (RetrievalWeights(exclude=unreachable_kinds({"planning"})), None)]
    for (weights, kind), now in itertools.product(cases, (NOW, NOW - timedelta(hours=3))):
        stream.weights = weights  # three hours ago: some memories were accessed later (a clock set back)
        for query in ("Who is coming to the party?", "the election", "what did I eat"):
            [vector] = asyncio.run(stream.embedder.embed([query]))
            every = stream.store.nearest("a", vector, 1000, kind, weights.exclude)
            assert len(every) == sum(n.npc_id == "a" and (kind is None or n.kind == kind)
                                     and n.kind not in weights.exclude for n in nodes)
            expected = score(every, now, query, weights)
            got = stream.top("a", vector, query, now, kind)
            assert [r.score for r in got] == pytest.approx([r.score for r in expected], abs=1e-5)
            assert [r.node.id for r in got] == [r.node.id for r in expected]
            for g, e in zip(got, expected, strict=True):
                assert (g.recency, g.importance, g.relevance) == pytest.approx((e.recency, e.importance,
                                                                                e.relevance), abs=1e-6)


def test_equal_scores_at_the_cut_go_by_id_whatever_order_they_were_written(any_store) -> None:
    """A memory made twice ("busy at the classroom" at 08:20 and 13:15, both last touched at 13:15)
    scores the same twice; at the top_k cut Qdrant kept the one its segments held first, so two
    lockstep runs of one town, writing in another order, retrieved another one and parted there.
    Written forwards for one NPC and backwards for another, each keeps its lowest ids."""
    stream = any_store
    stream.weights = RetrievalWeights(top_k=4)
    touched = NOW - timedelta(hours=1)
    for npc_id, order in (("fwd", range(12)), ("rev", reversed(range(12)))):
        tied = [MemoryNode(npc_id=npc_id, kind=MemoryKind.OBSERVATION, importance=3,
                           description="Tobias Grell is busy at the classroom",
                           created=NOW - timedelta(hours=5, minutes=i), last_accessed=touched) for i in order]
        for node in tied:  # one write each: the order the store holds them in
            asyncio.run(stream.remember(npc_id, None, [node], None, rate=False))
        [vector] = asyncio.run(stream.embedder.embed(["Tobias Grell at the classroom"]))
        got = [r.node.id for r in stream.top(npc_id, vector, "Tobias Grell at the classroom", NOW, None)]
        assert got == sorted((n.id for n in tied), key=lambda i: str(uuid.UUID(i)))[:4], npc_id


def test_the_newest_memories_made_at_one_time_go_by_id_whatever_order_they_were_written(any_store) -> None:
    """A minute's perceptions share their time; which of them fell inside the retention window
    (those perception skips as seen) followed the order of writing, and two lockstep runs of one
    town remembered different people on their way to the same event."""
    stream = any_store
    for npc_id, order in (("fwd", range(12)), ("rev", reversed(range(12)))):
        same_minute = [MemoryNode(npc_id=npc_id, kind=MemoryKind.OBSERVATION, importance=2, created=NOW,
                                  last_accessed=NOW, description=f"Resident {i} is going to a lantern walk")
                       for i in order]
        older = MemoryNode(npc_id=npc_id, kind=MemoryKind.OBSERVATION, importance=2, description="the tide is out",
                           created=NOW - timedelta(minutes=1), last_accessed=NOW)
        for node in [older, *same_minute]:
            asyncio.run(stream.remember(npc_id, None, [node], None, rate=False))
        got = [n.id for n in stream.store.latest(npc_id, 4, MemoryKind.OBSERVATION)]
        assert got == sorted((n.id for n in same_minute), key=lambda i: str(uuid.UUID(i)))[:4], npc_id
        assert [n.id for n in stream.store.latest(npc_id, 13)][-1] == older.id
