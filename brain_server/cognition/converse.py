"""Dialogue (paper section 4 "converse"); here the interview: an NPC answers a question in
character from the memories the question retrieves, as the paper's evaluation did."""

from __future__ import annotations

from datetime import datetime

from brain_server.cognition.memory_stream import MemoryStream, bullet_list
from brain_server.npc import Persona
from brain_server.prompts.interview import PROMPT as INTERVIEW
from brain_server.prompts.interview import InterviewAnswer
from brain_server.trace import Trace


async def answer_interview(npc_id: str, persona: Persona, question: str, now: datetime,
                           stream: MemoryStream, trace: Trace) -> str:
    memories = await stream.retrieve(npc_id, question, now, trace)
    answer = await stream.llm.complete(
        INTERVIEW,
        {"npc_name": persona.name, "persona": persona.summary(), "time": now.strftime("%A %B %d, %H:%M"),
         "memories": bullet_list(memories, limit=20), "question": question},
        npc_id=npc_id,
        fallback=lambda: InterviewAnswer(answer="Sorry, my mind is elsewhere right now. Ask me again later?"),
        trace=trace,
    )
    return answer.answer
