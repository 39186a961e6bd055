"""The player's Talk, answered whole (Talk) or with its line streamed as the model writes it
(TalkStream), or its last line taken back (TakeBack): one request checked one way, one
conversation (cognition/player_talk.py). The streamed messages cross from the mind's loop to the
transports' through `send` (transport/__init__.py `core_streams`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from brain_server.cognition.player_talk import Player
from brain_server.model import validation
from npc_brain.v1 import brain_pb2 as pb


def speaker(request: pb.TalkRequest | pb.TalkStreamRequest | pb.TakeBackRequest) -> str:
    """Who speaks, by the name the NPC hears (a Talk's and its TakeBack's alike)."""
    return validation.name("speaker_name", request.speaker_name.strip() or "the player")


async def answer(player: Player, request: pb.TalkRequest | pb.TalkStreamRequest, now: datetime,
                 on_text: Callable[[str], None] | None = None) -> pb.TalkResponse:
    validation.text("text", request.text, required=True)
    reply, ended, trace = await player.talk(request.npc_id, speaker(request), request.text, now, on_text)
    return pb.TalkResponse(reply=reply, end_conversation=ended, trace_id=trace.trace_id)


async def streamed(player: Player, request: pb.TalkStreamRequest, now: datetime,
                   send: Callable[[pb.TalkStreamResponse], None]) -> pb.TalkStreamResponse:
    """The line so far to `send` each time it grows, then the whole line (the last message)."""
    line = await answer(player, request, now, lambda text: send(pb.TalkStreamResponse(text=text)))
    return pb.TalkStreamResponse(line=line)
