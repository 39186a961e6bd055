"""A stand-in model that only reads its prompt: an OpenAI-compatible endpoint whose answers are a
generic function of the prompt's text and the requested JSON schema.

It knows no town, person or event. It reads what the brain shows it — the persona, the clock
("It is ...", "Today is ..."), remembered lines ("- ..."), dialogue lines (`Name: "..."`), numbered
statements, places — and copies the most relevant of them into its answer:

- a *news line* it was shown among its memories — a sentence with a date or clock time still
  ahead (e.g. "... on March 3 from 6 pm to 8 pm"), or someone's decision or intention ("X has
  decided to ...") — is repeated: the conversation line it writes shares it, the listener's reply
  accepts it, the memo repeats it and makes it a plan item on its day (only today's when the
  schema has no day to give), the day plan holds a block at that time at the place the line
  names, a re-plan keeps it, "currently" carries it, an interview answer quotes it;
- a question is answered from the shown line that shares its rarest words, and "no" when none does;
- places are chosen by the words they share with the activity, steps restate their block.

So the emergent results (diffusion, attendance) measure the brain's pipeline: what one NPC was
told reaches another only if retrieval, prompts, memos and plans carry it. Answers go through
`conform`, which makes any draft valid for the schema asked (enums, lengths, patterns, ranges,
item counts): a purpose it has no reading for, or a schema that changed, still gets a valid
answer built from the prompt. Deterministic: the same request and seed give the same answer.

Two moods: `cooperative` (npc_lab/standin/cooperative.py), which passes on every piece of news and
accepts every invitation, and `hard` (npc_lab/standin/hard.py), which is hard to please: it
declines, forgets, paraphrases times, leaves places out of its plans and answers vaguely, at the
rates in `hard.RATES`. A third mood, `blind` (npc_lab/standin/blind.py), was written by someone who read only captured
requests (never this package or the brain) and frozen before its first town run: its hash is in
docs/evaluation.md, and nothing in it may change but crashes. It is the evidence that counts.
A fourth, `blind2` (npc_lab/standin/blind2.py), was written the same way by another hand that saw
neither `blind` nor the brain, and has never been probed: `blind` was used to find what the prompts
hid from a literal model, so its later figures are partly fitted to it. A fifth, `blind3`
(npc_lab/standin/blind3.py), by a third hand that saw neither, from requests captured in a town
none of the measured ones (Wyncombe): it judged the prompt changes made after reading blind2's
answers, and its answers were then read in turn (a host's turns in Korrin), so its later figures
are partly fitted to it too. A sixth, `blind4` (npc_lab/standin/blind4.py), by a fourth hand that
saw none of them, from requests captured afresh from the brain after those changes (Wyncombe
again), judges them; blind4's answers were read in turn (day plans that slept at midday). A seventh,
`blind5` (npc_lab/standin/blind5.py), by a fifth hand that saw none of them, from requests captured
afresh (Wyncombe, stop 55) before the changes made from blind4's answers, judges those changes;
its answers were read in turn (a reaction's schedule line told as news). An eighth, `blind6`
(npc_lab/standin/blind6.py), by a sixth hand that saw none of them, from requests captured afresh
(Wyncombe, stop 56) before the changes made from blind5's answers, judges those changes; its
answers were read in turn (interviews). A ninth, `blind7` (npc_lab/standin/blind7.py), by a seventh
hand that saw none of them, from requests captured afresh (Wyncombe, stop 56) after those changes,
judges them from the start of the stop. A tenth, `blind8` (npc_lab/standin/blind8.py), by an eighth
hand that saw none of them, from requests captured afresh (Wyncombe, stop 57) before that stop's
changes, judges them; its answers were read in turn. An eleventh, `blind9`
(npc_lab/standin/blind9.py), by a ninth hand, from requests captured afresh after those changes
(Wyncombe, stop 57), judges them; its answers were read in turn. A twelfth, `blind10`
(npc_lab/standin/blind10.py), by a tenth hand, from requests captured afresh (Wyncombe, stop 58)
before that stop's changes, judges them; its answers were read in turn. A thirteenth, `blind11`
(npc_lab/standin/blind11.py), by an eleventh hand, from requests captured afresh (Wyncombe, stop 59)
after those changes, judges them; its answers were read in turn (stop 60: interviews, memos passed
on as news). A fourteenth, `blind12` (npc_lab/standin/blind12.py), by a twelfth hand, from requests
captured afresh (Wyncombe, stop 60) after that stop's change to news copied from memos, judges it;
its answers were read in turn (stop 61: an interview rule that measures nothing, a host's own event).
A fifteenth, `blind13` (npc_lab/standin/blind13.py), by a thirteenth hand, from requests captured
afresh (Wyncombe, stop 62), asked to answer interviews from what the prompt shows, judges stop 61's
change. A sixteenth, `blind14` (npc_lab/standin/blind14.py), by a fourteenth hand, from requests captured
afresh (Wyncombe, stop 66, in and out of view), judges stop 65's changes; it finds an event by a list of nouns, so it misses every event of the
untuned towns, named by nouns not on it. A seventeenth, `blind15` (npc_lab/standin/blind15.py),
by a fifteenth hand, from those requests and others captured for an event named by no noun (a baker
showing people his sourdough starter), asked to find an event by what it is (someone means to do
something at a stated time that others may join), judges them too. An eighteenth, `blind16`
(npc_lab/standin/blind16.py), by a sixteenth hand, from requests captured afresh (Wyncombe, stop 67,
an event named by no noun: a carpenter's pole lathe set up for anyone to try), modelled on a small
local model that reads the last lines of a long prompt best, judges stop 67's changes unread. A nineteenth,
`blind17` (npc_lab/standin/blind17.py), by a seventeenth hand, from requests captured afresh (Wyncombe,
stop 69, an event said as "would like to show anyone who is interested how to bind a sprained ankle"),
modelled on a mid-size (7-9B) local model, judges stop 69's code unread. A twentieth, `blind18`
(npc_lab/standin/blind18.py), by an eighteenth hand, from requests captured afresh (Wyncombe, stop 70,
an event said with its day first: "On Saturday April 11, between 10 in the morning and noon, the
Workshop is open to anybody with a broken chair ..."), modelled on a small (3-4B) local model,
judges stop 70's code unread. A twenty-first, `blind19` (npc_lab/standin/blind19.py), by a nineteenth
hand, from requests captured afresh (Wyncombe, stop 71, an event said as whom it is for, its hours
in words: "Anyone whose bicycle squeaks, wobbles or won't change gear can wheel it round to the
garden of the Plough Inn on Saturday the 11th, from nine till eleven in the morning; ..."),
modelled on a small hosted model with strict structured outputs, judges stop 71's code unread. A
twenty-second, `blind20` (npc_lab/standin/blind20.py), by a twentieth hand, from requests captured afresh
(Wyncombe, stop 75, a whisper that begins with how its event came about and says its hours as "one
o'clock to three"), modelled on a mid-size (12-14B) local model whose output no schema constrains,
judges stop 75's code unread. A twenty-third, `blind21` (npc_lab/standin/blind21.py), by a twenty-first
hand, from requests captured afresh (Wyncombe, stop 76, lantern slides shown "from half past five till
seven in the evening"), modelled on a terse, literal 70B-class model under JSON mode whose schema no
server enforces, judges stop 76's code unread. A twenty-fourth, `blind22` (npc_lab/standin/blind22.py), by a
twenty-second hand, from requests captured afresh (Wyncombe, stop 77, a baker's oven kept hot
"tomorrow morning, ten until twelve" for anyone to bake a loaf), modelled on a chatty 8B-class model
behind Ollama's OpenAI route, judges stop 77's code; its writer's list of what confused it was read
before its first run. Two more answer only part of what is asked, for the interview evaluation
(`npc-lab eval`): `blind23` (npc_lab/standin/blind23.py), by a twenty-third hand, answers the
Interview RPC's questions as a mid-size (14B) model would, from requests captured at stop 82
(Korrin, interviews under the paper's four conditions), and `blind24` (npc_lab/standin/blind24.py),
by a twenty-fourth hand that saw only the judge's requests, ranks the conditions' answers as a
70B-class judge would; any other request gets a generic answer valid for its schema. A
twenty-seventh, `blind25` (npc_lab/standin/blind25.py), by a twenty-fifth hand, from requests captured
afresh at stop 96 (Wyncombe, blind22 answering) under three prompt sets (the shipped one in view, the
second reworded set out of view, the fourth in view: their dates and clocks in three forms each),
modelled on a mid-size mixture-of-experts model (~30B, ~3B active) behind vLLM with guided decoding
that reads dates and clocks in any form; its writer's list of what confused it was read before its
first run. A twenty-eighth, `blind26` (npc_lab/standin/blind26.py), by a twenty-sixth hand, from
requests captured afresh at stop 98 (Corvin Mansions, blind25 answering) under the shipped prompts in
view, the third reworded set out of view (dotted clocks, "2.00 p.m.") and the fifth in view, modelled
on a 12-14B dense model behind llama.cpp's server whose grammar keeps the schema's structure but not
its integer bounds; its writer's list of what confused it was read before its first run. A
twenty-ninth, `blind27` (npc_lab/standin/blind27.py), by a twenty-seventh hand, from requests
captured afresh at stop 99 (in a town of the lab's, blind25 answering; the shipped prompts in and out of view,
interviews included, the second reworded set out of view and the fourth in view), modelled on an
~8B model run locally through Ollama's OpenAI route, whose grammar keeps the schema's keys, types and
enums but not always its bounds; its writer's list of what confused it was read before its first
run. A thirtieth, `blind28` (npc_lab/standin/blind28.py), by a twenty-eighth hand, from requests
captured later at stop 99 (in another town of the lab's, blind27 answering; the same four kinds of
run, the first and third sets), modelled on a capable mid-size hosted model behind an API that
honours JSON mode only, so the schema is not enforced. A thirty-first, `blind29`
(npc_lab/standin/blind29.py), by a twenty-ninth hand, from requests captured at stop 100 (in a town of
the lab's, blind28 answering; the shipped prompts in and out of view, interviews included, the second
reworded set in view and the fifth out of view), modelled on a 12-14B open-weights model behind vLLM
with guided decoding, so every JSON answer fits its schema; its writer's list of what confused it
was read before its first run. A thirty-second, `blind30` (npc_lab/standin/blind30.py), by a thirtieth
hand, from the judge's requests alone (captured at stop 101 in a town of the lab's, blind24 judging, each with the
resident's record of their latest hours), is a judge: a ~27-32B open-weights model behind vLLM with
guided decoding, ranking interview answers. A thirty-third, `blind31` (npc_lab/standin/blind31.py), by a
thirty-first hand, from requests captured at stop 104 (Korrin, blind29 answering; the shipped prompts in
view with the diffusion interviews and out of view, the second reworded set in view and the fourth out of
view), is modelled on a hosted small model (GPT-4o-mini, Gemini Flash, Claude Haiku class) with strict
structured outputs: its JSON keeps the schema's types, keys and enums, not always its lengths, bounds and
patterns; its writer's list of what confused it was read before its first town run. A thirty-fourth,
`blind32` (npc_lab/standin/blind32.py), by a thirty-second hand, from requests captured at stop 106
(in a town of the lab's, blind31 answering; the shipped prompts in view with the diffusion interviews and out of view,
the third reworded set in view and the fifth out of view), is modelled on a 3-4B open-weights model run
locally through Ollama's OpenAI route (8k context, a fact in a long prompt's middle noticed at 0.75): its
grammar keeps the schema's keys, types and enums, not its bounds. A thirty-fifth, `blind33`
(npc_lab/standin/blind33.py), by a thirty-third hand, from requests captured at stop 107 (Korrin, blind31
answering; the shipped prompts and three reworded sets, in and out of view), is modelled on an 8B reasoning
model (Qwen3-8B class) on Ollama with thinking on: its thinking counts against `max_tokens`, so a budget
it spends thinking leaves the answer empty or cut; a 4,096-token context that cuts a long prompt's front.
A thirty-sixth, `blind34` (npc_lab/standin/blind34.py), by a thirty-fourth hand, from requests captured at
stop 108 in Ravnholmen (blind33 answering, a thinking model's extra tokens) and Hijaltola (blind32 answering),
is modelled on a 70B-class open-weights model (Llama-3.3-70B class) on a hosted provider's JSON mode: it
reads well, is verbose and polite, declines a real clash, invents plausible detail at declared rates.
A thirty-seventh, `blind35` (npc_lab/standin/blind35.py), by a thirty-fifth hand, from requests captured at
stop 109 in two of the lab's towns, in and out of view (blind34, blind32 and blind31 answering), is
modelled on a 24B dense model (Mistral-Small-3 class) on LM Studio at its default load settings: a grammar
for the schema, 4,096 tokens of context (a longer prompt is refused), a fact in a long prompt's middle
missed at 0.2-0.3. A thirty-eighth, `blind36` (npc_lab/standin/blind36.py), by a thirty-sixth hand, from
requests captured at stop 113 in three of the lab's towns (Brinnick in view with blind34 answering; Korrin and
Cauldwell out of view with the hard stand-in), is modelled on a 12B dense model (Gemma-3-12B class) on Ollama's
OpenAI route with the context raised to 8,192 tokens: a grammar that keeps keys, types and enums but not bounds,
no system role (folded into the first user turn), a prompt over the context cut from its front.
A thirty-ninth, `blind37` (npc_lab/standin/blind37.py), by a thirty-seventh hand, from requests captured at
stop 114 in four of the lab's towns under three prompt sets (two in view with the shipped prompts, one in view
with the third reworded set, two out of view with the second and fourth; blind36 answering), is modelled on an 8B dense model (Llama-3.1-8B-Instruct class) on llama.cpp's
server with a 16,384-token context: a grammar that keeps the schema's keys, types, enums and bounds.
`FROZEN` holds the hashes.
Served by npc_lab/standin_openai.py.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from importlib import import_module
from typing import Any

from npc_lab.standin.cooperative import StandIn
from npc_lab.standin.hard import RATES, HardStandIn, Rates
from npc_lab.standin.schema import conform

# sha256 of each frozen blind model as its writer handed it over (docs/evaluation.md).
FROZEN = {"blind.py": "1a46b07e1bef4db0f01d264bd19df7cd206b0fd8a051a913afaa9c217f81e235",
          "blind2.py": "17d0a010d2a3fb4902b2632f1b827f8da072d306ba636f6f0fa2d3a13c856802",
          "blind3.py": "eebed25eaecf9015239b43ea6e5249e1759175b50395fdda3e4912e96d43f570",
          "blind4.py": "80c406a34d56af65b0494de0d51ce7c09febfb1c1b9cc37caf2e1af8cc4aab3f",
          "blind5.py": "33ba138a0fbfd0330971aa43cacf510a8b6fe105ca286e783cbe5c8f30e94904",
          "blind6.py": "3ee8c1a29a7ea3f2afc1b2fe58ff043c37720c456ae10d45058bb347e1fcda6b",
          "blind7.py": "6d9c956c50669ebf3b1f8dd0bebba878e621d133220e1986dd4386e358b857ca",
          "blind8.py": "d69fbb9067af87b90af0222bcd54cc50691273d3135ce8555a90451b377e3de3",
          "blind9.py": "bf3a04c86d5259374d317cb6f856901da2e3b0049ed7e86e7795a3e904b3f0eb",
          "blind10.py": "823c11b23e0e0fe82038d2106349adf3371f9c36cc91c35cec673470950b52ef",
          "blind11.py": "ff3c45c8d10ea3a1581eea859d7eff0fad6d0af479b9712ebc96cbd49868f7be",
          "blind12.py": "ae5349519c445bac8fbc0b0dead0cfc1355064b7e48b0dd37a503a64403c612e",
          "blind13.py": "2280b14a0e8bbec3bfe8f79d10c202d9dc948bcc56fcf9c5677c5ddb32c069f6",
          "blind14.py": "a71cf4a1982053f02736785c0545df0d274e215a22863a3fa57f54e72706e3bb",
          "blind15.py": "c54493aa33741da442e7785280e9b56aea5ceec6d39acfea253f8f2a6802bcb5",
          "blind16.py": "47420d07b71b68bb35b36ced67b347b5635548cbc41395a8e6602aa14ddf1dc1",
          "blind17.py": "f9865d43c765cbf157eeb5f06cc2406dba90ab4440a350265fa53b921eba46c4",
          "blind18.py": "e1fa131707d4238df6f43e9016aa0c8532a18559a7ec3401750d8d3f4ad4cbd7",
          "blind19.py": "476f27951bc24641fffa6ce50f784187eb9cee72aa94db9d99d5bd0a87b25cca",
          "blind20.py": "214db8e22466d2ea27c766f104dcead978fc604fe5619e4d312c6d78b5ba8879",
          "blind21.py": "8c98a85cc8112b371a5a1541b2f7975e3043c7ea4d365f01e1167132a6ebc5ee",
          "blind22.py": "d46ccfa4bb831528353bf5da31503c908c0865fe390ac8e1cae3de8d852b7b30",
          "blind23.py": "85ed9faafa36a37c950427eda957e68ca098801b39cf98009602161875705e4c",
          "blind24.py": "c549863715ecfde88886b3c66bfe2f9936da8ebc1c8584385792af979034f536",
          "blind25.py": "0f1789bd92001bc30ae1e2b37b59ed463ff0e0231ba32f0ee87db26b3a4575e5",
          "blind26.py": "87bba117b7a9cc11a5de34dd656171bc0b8528930073d539716aac28307b40a7",
          "blind27.py": "28e0bf0307355da617dbacdcd3badf568ff80cdddf20f3a3b539a5c3b65424de",
          "blind28.py": "dba5d938d9a6508d64b5aae85b6fa607dc4bdeb6326513035d7c8c81bb5de0c3",
          "blind29.py": "e9cc98fc66a5728ee0635f02bffeb71b94003eed7e1f758456b0271ed9b2078b",
          "blind30.py": "a6112207cfd94c642c404975c488b88ba1e41aa7d0772c86940b58889d302b83",
          "blind31.py": "62a87bfb02e90cb40b0b123382c5c97e9bfd5c95b67058086ef172045ec4e66d",
          "blind32.py": "dd1744565b1eeab38496b104ce5e65c26b94a6e8a249a7f54dc110c22c5be1ea",
          "blind33.py": "80ba52eff98cc15aaf306533c677f8a290f2835ba9b6b02a249faf417023ea43",
          "blind34.py": "ef44451e21a3f1a12bdad6a9c449a71d7e6361e6e698d2a24036d4827d487095",
          "blind35.py": "064972d3c8e88480ed77f15f239962c31aad89e0255361061696c43c7fafa98e",
          "blind36.py": "3a248444c46b742639c2a3880a62c3d30943e95ca6fd848f6ec21c54122def08",
          "blind37.py": "5e66439cad6312fa678e908ede50433ccb3c026dd9e6eb2d0f61e8cf1531ad12"}


class BlindStandIn:
    """A frozen blind model behind the moods' interface: its answer is the completion's text as it
    wrote it (malformed at its declared rates), never made valid by `conform`."""

    def __init__(self, model: Callable[[dict[str, Any], int], Any], body: dict[str, Any], seed: int) -> None:
        self.model, self.body, self.seed = model, body, seed

    def answer(self) -> str:
        return str(self.model(self.body, self.seed))


# Each frozen model is a mood named after its file ("blind7.py": --mood blind7).
MOODS: dict[str, Callable[[dict[str, Any], int], StandIn | BlindStandIn]] = {
    "cooperative": StandIn, "hard": HardStandIn,
    **{name.removesuffix(".py"): partial(BlindStandIn, import_module(f"{__name__}.{name.removesuffix('.py')}").respond)
       for name in FROZEN}}

__all__ = ["FROZEN", "MOODS", "BlindStandIn", "RATES", "HardStandIn", "Rates", "StandIn", "conform", "known_mood", "respond"]


def respond(body: dict[str, Any], seed: int = 0, mood: str = "cooperative") -> Any:
    """The stand-in's answer to a chat request (its JSON value)."""
    return MOODS[known_mood(mood)](body, seed).answer()


def known_mood(mood: str) -> str:
    """`mood`, if there is a stand-in of that name."""
    if mood not in MOODS:
        raise ValueError(f"unknown stand-in mood {mood!r}: use one of {', '.join(MOODS)}")
    return mood
