"""A character's spoken line, as the schemas of lines check it. A model's assistant voice ("As an
AI language model, I cannot...", "I'm sorry, but I can't assist with that request") is a refusal,
not something a character says: it fails validation as malformed JSON does, so the call is asked
again and then falls back, and the player never reads it in a baker's mouth. The patterns are the
assistant's own phrases, not words a character may use ("I can't help you with that" passes)."""

import re
from typing import Annotated

from pydantic import AfterValidator

_ASSISTANT = re.compile(
    r"\b(?:ai|large) language model\b|\bas a language model\b|\bi(?:'m| am) (?:just )?an ai(?: assistant)?\b"
    r"|\bi(?: can(?:'|no)t| am unable to|'m unable to) (?:assist|comply) with\b|\bopenai\b|\bchatgpt\b"
    r"|\bas an ai assistant\b",
    re.IGNORECASE)


def _in_character(text: str) -> str:
    if found := _ASSISTANT.search(text.replace("\u2019", "'")):
        raise ValueError(f"the model answered as an assistant ({found.group(0)!r}), not as the character")
    return text


Spoken = Annotated[str, AfterValidator(_in_character)]
