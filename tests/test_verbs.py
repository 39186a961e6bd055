"""Game verbs: declarations are checked when the game sends them, and whatever the model writes
(through the real openai client against the fake endpoint) the game only ever receives a
declared verb with typed arguments in range on a target it applies to; anything else becomes a
plain step, noted in the trace."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
import json
from typing import Any

from google.protobuf import json_format
import grpc
import pytest

from brain_server.api import convert
from brain_server.cognition.memory_stream import MemoryStream
from brain_server.cognition.retrieve import RetrievalWeights
from brain_server.cognition.steps import action_now, decompose_upcoming
from brain_server.llm.client import LLM
from brain_server.llm.embeddings import MiniLMEmbedder
from brain_server.llm.scheduler import Priority, Work
from brain_server.model import validation
from brain_server.model.errors import BrainError
from brain_server.model.npc import NpcState, Persona, PlanItem
from brain_server.model.trace import Trace
from brain_server.model.verbs import Verb, VerbArgument
from brain_server.persistence.storage import MemoryStore
from brain_server.prompts import PromptLibrary
from npc_brain.v1 import brain_pb2 as pb
from npc_lab.fake_openai import FakeOpenAI
from npc_lab.standin_openai import StandInOpenAI
from tests.clients import Clients
from tests.conftest import Run

WORK = Work(Priority.PLAN_NOW, "test")  # what the completions here are for


W = "Hamlet"
TOWER = f"{W}:Chapel:tower"
NOON = datetime(2026, 3, 2, 11, 30, tzinfo=UTC)
RING = Verb(name="ring_bell", description="Ring the chapel bell to tell the village the hour.", place="object",
            targets=["bell"], arguments=[VerbArgument(name="times", type="integer", minimum=1, maximum=12),
                                         VerbArgument(name="tone", choices=["loud", "soft"])])
VERBS = [RING, Verb(name="open_shop", description="Open the shop for customers.", place="arena", targets=["shop"]),
         Verb(name="bless", description="Bless whoever is there.", users=["the_priest"])]


def bell_ringer() -> NpcState:
    persona = Persona(name="Bob Bell", identity="Bob rings the chapel bell at noon.", home=TOWER)
    npc = NpcState(npc_id="bob_bell", world_name=W, persona=persona, known_addresses=[TOWER])
    npc.plan = [PlanItem(start=NOON, duration_minutes=60, activity="ringing the noon bell", address=TOWER)]
    return npc


def step(verb: str = "", obj: str = "bell", **arguments: str) -> dict[str, Any]:
    return {"activity": f"step {verb or 'plain'}", "duration_minutes": 10, "object": obj, "object_state": "",
            "verb": verb, "arguments": [{"name": k, "value": v} for k, v in arguments.items()]}


def decompose(run: Run, npc: NpcState, verbs: list[Verb]) -> Trace:
    trace = Trace(npc_id=npc.npc_id, kind="work", game_time=NOON)

    async def scenario(stream: MemoryStream) -> int:
        return await decompose_upcoming(npc, NOON, stream, trace, horizon_minutes=0,
                                        objects={TOWER: ["bell", "rope"]}, verbs=verbs, work=WORK)

    assert run(scenario) == 1
    return trace


def test_only_a_declared_verb_with_good_arguments_on_its_target_reaches_the_game(run: Run, fake_llm: FakeOpenAI) -> None:
    adversarial = [step("launch_missiles"), step("ring_bell", times="12", tone="deafening"),
                   step("ring_bell", times="99", tone="loud"), step("ring_bell", obj="rope", times="3", tone="loud"),
                   step("ring_bell", tone="loud"), step("ring_bell", times="12", tone="loud", volume="11"),
                   step("open_shop"), step("bless")]
    fake_llm.queue({"json": {"steps": [*adversarial, step("ring_bell", times="12", tone="loud")]}}, purpose="decompose")
    npc = bell_ringer()
    trace = decompose(run, npc, VERBS)

    [asked] = fake_llm.chat_requests("decompose")
    schema = asked["body"]["response_format"]["json_schema"]["schema"]
    assert schema["$defs"]["Step"]["properties"]["verb"]["enum"] == ["", "ring_bell"]  # only what Bob may do here
    prompt = asked["body"]["messages"][1]["content"]
    assert '"ring_bell" (on the bell): Ring the chapel bell' in prompt
    assert 'times: a whole number from 1 to 12; tone: "loud" or "soft"' in prompt
    refused = [n for n in trace.notes if n.startswith("verb refused")]
    assert len(refused) == len(adversarial), refused
    for why in ("'launch_missiles' is not declared", "tone='deafening' is not one of", "times=99.0 is outside 1.0..12.0",
                "does not apply to object 'rope'", "missing argument 'times'", "has no argument 'volume'",
                "'open_shop' is not declared", "'bless' is not declared"):
        assert any(why in n for n in refused), (why, refused)

    steps = npc.plan[0].subtasks
    with_verb = [s for s in steps if s.verb]
    assert len(with_verb) == 1 and with_verb[0].activity == "step ring_bell"
    action = action_now(npc, with_verb[0].start, "plan")
    assert action.verb is not None
    message = convert.action_to_pb(action)
    assert message.verb.name == "ring_bell" and message.verb.target == f"{TOWER}:bell"
    values = {v.name: getattr(v, v.WhichOneof("value")) for v in message.verb.arguments}
    assert values == {"times": 12, "tone": "loud"} and message.verb.arguments[0].WhichOneof("value") == "integer"
    assert all(action_now(npc, s.start, "plan").verb is None for s in steps if not s.verb)


def test_without_verbs_here_the_decomposition_asks_as_before(run: Run, fake_llm: FakeOpenAI) -> None:
    """No verb usable at the block's place: the same one call, no verb in its prompt or schema."""
    fake_llm.queue({"json": {"steps": [step("ring_bell", times="1", tone="loud")] * 4}}, purpose="decompose")
    npc = bell_ringer()
    trace = decompose(run, npc, [v for v in VERBS if v.name != "ring_bell"])
    [asked] = fake_llm.chat_requests("decompose")
    assert "verb" not in json.dumps(asked["body"]["response_format"]) and "verb" not in asked["body"]["messages"][1][
        "content"]
    assert not any(s.verb for s in npc.plan[0].subtasks)
    assert any("'ring_bell' is not declared" in n for n in trace.notes)


def test_without_the_models_steps_the_routine_does_the_declared_verb_its_words_name(run: Run,
                                                                                     fake_llm: FakeOpenAI) -> None:
    """The embedded default writes no steps (nor does a model whose answers are unusable): Bob's
    "ringing the noon bell" repeats as his block, and, a verb being declared for the bell, his
    routine rings it (arguments: the least number, the first choice) at the bell; a block whose
    words name no verb does none."""
    fake_llm.queue(*[{"content": "nonsense"}] * 3, purpose="decompose")
    npc = bell_ringer()
    trace = decompose(run, npc, VERBS)
    [first, *rest] = npc.plan[0].subtasks
    assert first.verb is not None and first.verb.name == "ring_bell" and first.verb.target == f"{TOWER}:bell"
    assert first.verb.arguments == {"times": 1, "tone": "loud"} and first.address == f"{TOWER}:bell"
    assert rest and not any(s.verb for s in rest), "a verb is done once a block"
    assert any("does the declared verb ring_bell" in n for n in trace.notes)

    fake_llm.queue(*[{"content": "nonsense"}] * 3, purpose="decompose")
    sweeper = bell_ringer()
    sweeper.plan = [sweeper.plan[0].model_copy(update={"activity": "sweeping the tower stairs"})]
    decompose(run, sweeper, VERBS)
    assert not any(s.verb for s in sweeper.plan[0].subtasks)


def test_a_verb_whose_description_names_an_hour_is_done_then_in_a_routine_block_that_holds_it(
        run: Run, fake_llm: FakeOpenAI) -> None:
    """The issue's harbour game: a routine's working block, whatever its words, passes the verb's
    object at the hour its description names: the verb is done at that hour, once; a block that
    does not hold the hour does none."""
    noon_bell = RING.model_copy(update={"description": "Ring the chapel bell at noon for the village."})
    fake_llm.queue(*[{"content": "nonsense"}] * 6, purpose="decompose")
    keeper = bell_ringer()
    keeper.plan = [PlanItem(start=NOON.replace(hour=9, minute=0), duration_minutes=480, activity="keeping the chapel",
                            address=TOWER)]
    decompose(run, keeper, [noon_bell])
    [rung] = [s for s in keeper.plan[0].subtasks if s.verb]
    assert rung.start == NOON.replace(hour=12, minute=0) and rung.address == f"{TOWER}:bell"
    morning = bell_ringer()
    morning.plan = [PlanItem(start=NOON.replace(hour=8, minute=0), duration_minutes=225, activity="ringing bells",
                             address=TOWER)]
    decompose(run, morning, [noon_bell])
    assert not any(s.verb for s in morning.plan[0].subtasks), "the noon bell is not rung in a block that ends at 11:45"


def test_the_stand_in_model_picks_a_verb_from_its_description_alone(store: MemoryStore, minilm: MiniLMEmbedder) -> None:
    """The prompt-reading stand-in chooses the verb whose description fits the block (and none for
    a block no description fits), so a town on the stand-in uses a game's verbs."""
    sweep = Verb(name="sweep_floor", description="Sweep the dust off the chapel floor with a broom.")
    npc = bell_ringer()
    npc.plan.append(PlanItem(start=NOON.replace(hour=12, minute=30), duration_minutes=30, activity="eating a sandwich",
                             address=TOWER))

    async def scenario(model: StandInOpenAI) -> None:
        llm = LLM(base_url=model.base_url, model="stand-in", api_key="k", prompts=PromptLibrary(), backoff_s=0.01)
        try:
            stream = MemoryStream(store, minilm, llm, RetrievalWeights())
            await decompose_upcoming(npc, NOON, stream, Trace(npc_id=npc.npc_id, kind="work", game_time=NOON),
                                     horizon_minutes=60, objects={TOWER: ["bell", "rope"]}, verbs=[sweep, RING], work=WORK)
        finally:
            await llm.close()

    with StandInOpenAI() as model:
        asyncio.run(scenario(model))
    ringing, lunch = npc.plan
    calls = [s.verb for s in ringing.subtasks if s.verb]
    assert [(c.name, c.target, c.arguments) for c in calls] == [("ring_bell", f"{TOWER}:bell",
                                                                  {"times": 1, "tone": "loud"})]
    assert lunch.subtasks and not any(s.verb for s in lunch.subtasks)


def _world(*verbs: pb.Verb) -> pb.World:
    arena = pb.Arena(name="tower", tiles=[pb.Tile(x=0, y=0)], objects=[pb.GameObject(name="bell")])
    return pb.World(name=W, sectors=[pb.Sector(name="Chapel", arenas=[arena])], verbs=list(verbs))


def test_declarations_arrive_typed_from_the_protocol() -> None:
    ring = pb.Verb(name="ring_bell", description="Ring it.", place=pb.VERB_PLACE_OBJECT, targets=["bell"],
                   arguments=[pb.VerbArgument(name="times", type=pb.VERB_ARGUMENT_TYPE_INTEGER, minimum=1, maximum=12),
                              pb.VerbArgument(name="tone", choices=["loud", "soft"])])
    world = convert.world_from_pb(_world(ring))
    assert world.verbs == [RING.model_copy(update={"description": "Ring it."})]
    validation.verbs("world.verbs", world.verbs)


@pytest.mark.parametrize(("verb", "why"), [
    (pb.Verb(name="ring bell", description="x"), "a verb's name is"),
    (pb.Verb(name="ring", description=""), "description is empty"),
    (pb.Verb(name="ring", description="x", targets=["bell"]), "applies anywhere but names targets"),
    (pb.Verb(name="ring", description="x", users=["no one"]), "npc_id 'no one' is invalid"),
    (pb.Verb(name="ring", description="x", arguments=[pb.VerbArgument(name="tone")]), "choice without choices"),
    (pb.Verb(name="ring", description="x", arguments=[pb.VerbArgument(
        name="n", type=pb.VERB_ARGUMENT_TYPE_NUMBER, minimum=5, maximum=1)]), "the minimum first"),
    (pb.Verb(name="ring", description="x", arguments=[pb.VerbArgument(
        name="n", type=pb.VERB_ARGUMENT_TYPE_NUMBER, choices=["a"])]), "a number with choices"),
    (pb.Verb(name="ring", description="x", arguments=[pb.VerbArgument(name="n", choices=["a"])] * 2),
     "two arguments are named 'n'"),
    (pb.Verb(name="ring", description="x", place=7), "place 7 is not a known value"),
])
def test_a_bad_declaration_is_refused_with_the_reason(verb: pb.Verb, why: str) -> None:
    with pytest.raises(BrainError) as refused:
        validation.verbs("world.verbs", convert.world_from_pb(_world(verb)).verbs)
    assert why in refused.value.message, refused.value.message


def test_two_verbs_of_one_name_are_refused() -> None:
    with pytest.raises(BrainError, match="two verbs are named 'ring'"):
        validation.verbs("verbs", [Verb(name="ring", description="x")] * 2)


def test_the_brain_takes_declarations_refuses_bad_ones_and_remembers_outcomes(brain_factory) -> None:
    """Over both transports of a real brain: a world whose verb is malformed is refused with the
    reason; the fixed one registers; an NPC spawns with verbs of its own and resumes with others;
    a Decide carrying the game's outcomes makes them memories."""
    clients = Clients(brain_factory())
    try:
        ring = {"name": "ring_bell", "description": "Ring the bell.", "place": "VERB_PLACE_OBJECT", "targets": ["bell"],
                "arguments": [{"name": "times", "type": "VERB_ARGUMENT_TYPE_INTEGER", "minimum": 1, "maximum": 12}]}
        world = json_format.MessageToDict(_world())
        bad = {**world, "verbs": [{**ring, "arguments": [{"name": "tone"}]}]}
        refused = clients.connect("RegisterWorld", {"world": bad})
        assert refused.status_code == 400 and "choice without choices" in refused.json()["message"], refused.text
        with pytest.raises(grpc.RpcError) as failed:
            clients.grpc("RegisterWorld", {"world": bad})
        assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert clients.connect("ListMemories", {"npcId": "bob_bell"}).status_code == 404  # nothing of it kept
        assert clients.grpc("RegisterWorld", {"world": {**world, "verbs": [ring]}})["worldName"] == W
        spawn = {"worldName": W, "npcId": "bob_bell", "persona": {"name": "Bob Bell", "home": TOWER},
                 "verbs": [{"name": "wave", "description": "Wave at whoever is near."}]}
        assert clients.grpc("SpawnNpc", spawn) == {"npcId": "bob_bell"}
        again = clients.grpc("SpawnNpc", {**spawn, "verbs": [{"name": "wave", "description": "Wave to passers-by."}]})
        assert again == {"npcId": "bob_bell", "resumed": True}
        outcomes = [{"name": "ring_bell", "target": f"{TOWER}:bell", "done": True, "detail": "the bell rang 12 times"},
                    {"name": "wave", "target": TOWER, "detail": "nobody was there"}]
        clients.grpc("Decide", {"npcId": "bob_bell", "gameTime": "2026-03-02T12:05:00Z", "address": TOWER,
                                "verbOutcomes": outcomes})
        memories = [m["description"] for m in clients.grpc("ListMemories", {"npcId": "bob_bell"})["memories"]]
        assert f"Bob Bell did ring_bell at {TOWER}:bell: the bell rang 12 times" in memories, memories
        assert f"Bob Bell failed to do wave at {TOWER}: nobody was there" in memories, memories
    finally:
        clients.close()
