"""TalkStream: the NPC's line streamed as the model writes it, over gRPC (grpcurl) and Connect's
streaming protocol (httpx), whole where the endpoint does not stream, and stopped by a cancel."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
import json
import struct
from typing import Any

from google.protobuf import json_format
import grpc
import httpx
import pytest

from brain_server.llm.streaming import FieldText, Listener
from brain_server.prompts import PromptLibrary
from brain_server.prompts.converse_turn import Turn, read, spoken
from npc_brain.v1 import brain_pb2 as pb
from npc_lab.standin import respond
from tests.clients import Clients
from tests.test_rpc_tools import run, tool
from tests.town import spawn_json, world_json
from tests.waits import wait_until

TALK = {"npc_id": "isabella", "speaker_name": "Klaus", "text": "Hello! What are you up to?",
        "game_time": "2026-02-13T12:00:00Z"}
METHOD = "npc_brain.v1.BrainService/TalkStream"


@pytest.fixture
def brain(brain_factory):
    """A brain with the Ville and Isabella; `brain.clients` over both transports."""
    brain = brain_factory()
    brain.clients = Clients(brain)
    brain.clients.grpc("RegisterWorld", world_json())
    brain.clients.grpc("SpawnNpc", spawn_json())
    yield brain
    brain.clients.close()


def test_a_field_is_read_as_it_arrives_escapes_cut_by_chunks_included() -> None:
    reader = FieldText("utterance")
    chunks = ['{"end_conversation": false, "utter', 'ance": "Caf', '\\u00', 'e9 \\', '"ok\\"', '", "x": "y"}']
    assert [reader.feed(c) for c in chunks] == ["", "Caf", "Caf", "Café ", 'Café "ok"', 'Café "ok"']


LINE = "Well, hello there!"
# A line as the prompt asks for it, and as models write it anyway (the hard stand-in writes the first five).
FORMS = [(f"{LINE}\n[continue]", False), (f'"{LINE}"\n[end]', True), (f"Isabella Rodriguez: {LINE} [END]", True),
         (json.dumps({"utterance": LINE, "end_conversation": True}), True), (f'Isabella: "{LINE}"', False),
         (f'```json\n{{"line": "{LINE}"}}\n```', False), (f"<think>Klaus wants news.</think>\n{LINE}\nEND", True),
         (f"\u201c{LINE}\u201d [end of conversation]", True), (f"{LINE}\nContinue.", False)]


@pytest.mark.parametrize(("answer", "ended"), FORMS, ids=range(len(FORMS)))
def test_only_the_words_show_however_the_model_wraps_them(answer: str, ended: bool) -> None:
    reader, shown = spoken("Isabella Rodriguez"), []
    for at in range(0, len(answer), 3):  # three characters a chunk: tags, names and escapes cut
        shown.append(reader.feed(answer[at:at + 3]))
    assert all(LINE.startswith(text) for text in shown) and shown[-1] == LINE, shown
    assert read(answer, {"npc_name": "Isabella Rodriguez"}) == Turn(utterance=LINE, end_conversation=ended)


def test_a_line_that_only_begins_like_a_name_or_a_tag_is_shown() -> None:
    reader = spoken("Isabella Rodriguez")
    assert [reader.feed(c) for c in ("Is", " that", " [e", "xcited] so?", "\n[en", "d]")] == \
        ["", "Is that", "Is that", "Is that [excited] so?", "Is that [excited] so?", "Is that [excited] so?"]
    with pytest.raises(ValueError, match="no line"):
        read('{"utterance": {"unexpected": [1, 2]}}', {"npc_name": "Isabella Rodriguez"})
    assert read("I see. " + "A job is a job, " * 40, {}).utterance == "I see."  # a loop cut after its last sentence


def test_the_hard_stand_in_writes_lines_off_format_and_they_read_clean() -> None:
    body = {"messages": PromptLibrary().render("converse_turn", defaultdict(lambda: "", npc_name="Piet Vos",
                                                                          persona="Name: Piet Vos", partner="Odile"))}
    answers = [respond(body, seed, "hard") for seed in range(20)]
    assert 2 <= sum(not a.endswith(("\n[continue]", "\n[end]")) for a in answers) <= 12, answers
    assert {read(a, {"npc_name": "Piet Vos"}).utterance for a in answers} == {"Hi Odile! How are you doing?"}


def _messages(text: str) -> list[dict[str, Any]]:
    """grpcurl's output: one JSON object per streamed message."""
    decoder, out, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        message, at = decoder.raw_decode(text, text.index("{", at))
        out.append(message)
    return out


def _check_growing(texts: list[str], reply: str) -> None:
    assert len(texts) >= 3, texts
    assert all(a != b and b.startswith(a) for a, b in zip(texts, texts[1:], strict=False)), texts
    assert texts[-1] == reply and "{" not in "".join(texts), texts


def test_grpcurl_receives_the_line_in_pieces_then_whole(brain, fake_llm) -> None:
    fake_llm.tokens_per_s = 100
    described = run(tool("grpcurl"), "-plaintext", brain.grpc_target, "describe", "npc_brain.v1.BrainService")
    assert "rpc TalkStream ( .npc_brain.v1.TalkStreamRequest ) returns ( stream .npc_brain.v1.TalkStreamResponse );" \
        in described.stdout
    called = run(tool("grpcurl"), "-plaintext", "-d", json.dumps(TALK), brain.grpc_target, METHOD)
    assert called.returncode == 0, called.stderr
    *progress, last = _messages(called.stdout)
    assert set(last) == {"line"} and last["line"]["trace_id"]
    _check_growing([m["text"] for m in progress], last["line"]["reply"])
    empty = run(tool("grpcurl"), "-plaintext", "-d", json.dumps({**TALK, "text": ""}), brain.grpc_target, METHOD)
    assert empty.returncode != 0 and "InvalidArgument" in empty.stderr and "text" in empty.stderr


def _enveloped(message: dict[str, Any]) -> bytes:
    data = json.dumps(message).encode()
    return struct.pack(">BI", 0, len(data)) + data


def connect_stream(url: str, body: dict[str, Any], seen: Callable[[], int] = lambda: 0,
                   ) -> list[tuple[int, int, dict[str, Any]]]:
    """(what `seen` counted when it arrived, flags, message) of each envelope of a Connect server
    stream, as it arrives: with the fake's finished streams, whether it came before the last token."""
    out, buffer = [], b""
    headers = {"Content-Type": "application/connect+json", "Connect-Protocol-Version": "1"}
    with httpx.Client(timeout=30) as client, client.stream("POST", f"{url}/{METHOD}", content=_enveloped(body),
                                                           headers=headers) as response:
        assert response.status_code == 200 and response.headers["content-type"] == "application/connect+json"
        for chunk in response.iter_raw():
            buffer += chunk
            while len(buffer) >= 5 and len(buffer) >= 5 + struct.unpack(">I", buffer[1:5])[0]:
                size = struct.unpack(">I", buffer[1:5])[0]
                out.append((seen(), buffer[0], json.loads(buffer[5:5 + size])))
                buffer = buffer[5 + size:]
    return out


def test_connect_streams_the_line_as_it_is_written(brain, fake_llm) -> None:
    fake_llm.latency_s, fake_llm.tokens_per_s = 0.2, 40
    envelopes = connect_stream(brain.http_url, {"npcId": "isabella", "speakerName": "Klaus",
                                                        "text": "Hello there!", "gameTime": "2026-02-13T12:00:00Z"},
                               lambda: fake_llm.streams_done)
    *progress, (_, flags, line), (_, end_flags, end) = envelopes
    assert (flags, end_flags, end) == (0, 2, {}), envelopes[-2:]
    _check_growing([m["text"] for _, _, m in progress], line["line"]["reply"])
    # The first words arrive while the model is still writing the line; the whole line once it is done.
    assert (progress[0][0], envelopes[-2][0]) == (0, 1), [(done, m) for done, _, m in envelopes]
    refused = connect_stream(brain.http_url, {"npcId": "nobody", "text": "hi",
                                                      "gameTime": "2026-02-13T12:00:00Z"})
    assert [(f, m["error"]["code"]) for _, f, m in refused] == [(2, "not_found")]


def test_an_endpoint_that_does_not_stream_gives_the_line_whole(brain, fake_llm) -> None:
    channel = grpc.insecure_channel(brain.grpc_target)
    talk = channel.unary_stream(f"/{METHOD}", request_serializer=pb.TalkStreamRequest.SerializeToString,
                                response_deserializer=pb.TalkStreamResponse.FromString)
    for streaming, text in (("ignore", "Hello!"), ("refuse", "How is the cafe?"), ("refuse", "And the party?")):
        fake_llm.streaming = streaming  # answered whole, then HTTP 400
        messages = list(talk(json_format.ParseDict({**TALK, "text": text}, pb.TalkStreamRequest()), timeout=30))
        reply = messages[-1].line.reply
        parts = [m.WhichOneof("part") for m in messages]  # a whole answer's text may be overtaken by its line
        assert reply and parts in ([["text", "line"], ["line"]] if streaming == "ignore" else [["line"]]), parts
        assert all(m.text == reply for m in messages[:-1])
    asked = [bool(r["body"].get("stream")) for r in fake_llm.chat_requests("converse_turn")]
    assert asked == [True, True, False, False], asked  # once refused, asked whole
    assert not any("response_format" in r["body"] for r in fake_llm.chat_requests("converse_turn"))  # plain text
    channel.close()


def test_a_cancel_stops_the_model_and_the_npc_remembers_what_it_said(brain, fake_llm) -> None:
    brain.clients.grpc("Talk", {**TALK, "text": "Good morning!"})
    fake_llm.tokens_per_s = 4  # a slow model: the line takes seconds
    channel = grpc.insecure_channel(brain.grpc_target)
    call = channel.unary_stream(f"/{METHOD}", request_serializer=pb.TalkStreamRequest.SerializeToString,
                                response_deserializer=pb.TalkStreamResponse.FromString)(
        json_format.ParseDict(TALK, pb.TalkStreamRequest()), timeout=30)
    said = ""
    for message in call:
        said = message.text
        if len(said.split()) >= 2:
            break
    call.cancel()
    wait_until(lambda: fake_llm.streams_cut, what="the endpoint's stream cut after the cancel", limit_s=30)
    assert fake_llm.streams_cut == 1, "the endpoint kept generating after the cancel"
    fake_llm.tokens_per_s = 0
    again = brain.clients.grpc("Talk", {**TALK, "text": "Sorry, go on."})
    assert again["reply"]
    dialogue = fake_llm.chat_requests("converse_turn")[-1]["body"]["messages"][-1]["content"]
    assert f'"{said}—"' in dialogue and "Hello! What are you up to?" in dialogue and "Sorry, go on." in dialogue
    channel.close()


IN_CHARACTER = "Coffee? Our dark roast, always."


def _grpc_texts(brain: Any, text: str) -> tuple[list[str], str]:
    """TalkStream over gRPC: the streamed texts, then the whole line."""
    with grpc.insecure_channel(brain.grpc_target) as channel:
        talk = channel.unary_stream(f"/{METHOD}", request_serializer=pb.TalkStreamRequest.SerializeToString,
                                    response_deserializer=pb.TalkStreamResponse.FromString)
        *progress, last = talk(json_format.ParseDict({**TALK, "text": text}, pb.TalkStreamRequest()), timeout=30)
    return [m.text for m in progress], last.line.reply


def test_a_line_in_the_models_assistant_voice_never_reaches_the_player(brain, fake_llm) -> None:
    """Streamed word by word, a refused attempt shows none of its words (over gRPC), and one that
    began harmlessly is taken back the moment its assistant phrase is whole (over Connect, what
    Godot reads): the text starts over from "", each attempt's connection is closed unread, and
    the retry's line streams."""
    fake_llm.tokens_per_s = 100
    fake_llm.queue({"content": "As an AI language model, I cannot have opinions about coffee.\n[continue]"},
                   {"content": f"{IN_CHARACTER}\n[continue]"}, purpose="converse_turn")
    texts, reply = _grpc_texts(brain, "Which coffee?")
    assert reply == IN_CHARACTER and all(IN_CHARACTER.startswith(t) for t in texts), texts
    fake_llm.queue({"content": "Well, I suppose... I'm sorry, but I can't assist with that request, it breaks the "
                               "usage policy of this assistant and I cannot go on.\n[continue]"},
                   {"content": f"{IN_CHARACTER}\n[continue]"}, purpose="converse_turn")
    envelopes = connect_stream(brain.http_url, {"npcId": "isabella", "speakerName": "Klaus",
                                                "text": "And the tea?", "gameTime": "2026-02-13T12:00:00Z"})
    *progress, (_, _, line), _ = envelopes
    texts = [m["text"] for _, _, m in progress]
    taken_back = texts.index("")
    assert texts[:taken_back] and all("Well, I suppose...".startswith(t) for t in texts[:taken_back]), texts
    assert line["line"]["reply"] == IN_CHARACTER and all(IN_CHARACTER.startswith(t) for t in texts[taken_back:])
    assert fake_llm.streams_cut == 2, "a refused attempt was read to its end"
    calls = brain.clients.grpc("GetTrace", {"traceId": line["line"]["traceId"]})["trace"]["llmCalls"]
    assert any("answered as an assistant" in e and "Well, I suppose..." in e for c in calls for e in c.get("errors", []))


def test_a_line_after_reasoning_the_template_opened_streams_only_its_words(brain, fake_llm) -> None:
    """A thinking model whose chat template opens its reasoning (llama.cpp's forced-open thinking, a
    DeepSeek-R1 template) sends only the block's close: once the client has seen such an answer, a
    streamed line shows nothing of the reasoning before that close, only the line growing after it."""
    fake_llm.think_words, fake_llm.think_opened, fake_llm.tokens_per_s = 30, True, 200
    brain.clients.grpc("Talk", {**TALK, "text": "Good morning!"})  # answered whole: the client learns the dialect
    channel = grpc.insecure_channel(brain.grpc_target)
    talk = channel.unary_stream(f"/{METHOD}", request_serializer=pb.TalkStreamRequest.SerializeToString,
                                response_deserializer=pb.TalkStreamResponse.FromString)
    messages = list(talk(json_format.ParseDict(TALK, pb.TalkStreamRequest()), timeout=30))
    reply = messages[-1].line.reply
    texts = [m.text for m in messages[:-1]]
    assert reply and "step" not in reply and texts, messages
    assert all(reply.startswith(t) and "step" not in t and "think" not in t for t in texts), texts
    channel.close()


def test_a_listener_told_the_template_opens_reasoning_holds_the_words_until_it_closes() -> None:
    answer = "Klaus wants news. The request wants a line.\n</think>\n\nWell, hello there!\n[continue]"
    told: list[str] = []
    listener = Listener("converse_turn", lambda: spoken("Isabella Rodriguez"), told.append, reasoning_first=True)
    listener.start()
    for at in range(0, len(answer), 4):
        listener.heard(answer[at:at + 4])
    listener.ended()
    assert told and all(LINE.startswith(t) for t in told) and told[-1] == LINE, told
    plain: list[str] = []  # no reasoning after all: the whole answer is the line, told at its end
    listener = Listener("converse_turn", lambda: spoken("Isabella Rodriguez"), plain.append, reasoning_first=True)
    listener.start()
    listener.heard(f"{LINE}\n[end]")
    assert plain == []
    listener.ended()
    assert plain == [LINE]
