"""The stand-in model (npc_lab/standin/) as an OpenAI-compatible endpoint on the fake's server.

    python -m npc_lab.standin_openai --port 8998 [--seed 0] [--mood hard] [--latency 0.5] [--capture FILE]

With `--capture`, each request is kept as a model receives it: a brain pointed at this endpoint
(`NPC_BRAIN_LLM_BASE_URL`, e.g. `npc-lab sim` without `--stand-in-llm`) leaves what a blind
stand-in's writer reads (../shared/notes/blind-evaluation.md).
"""

from __future__ import annotations

import os
from pathlib import Path
import re
import sys
from typing import Any

from npc_lab.fake_openai import FakeOpenAI, arguments, serve
from npc_lab.sim.brain import ChildProcess
from npc_lab.standin import MOODS, known_mood, respond


class StandInOpenAI(FakeOpenAI):
    """The fake endpoint's server, answering with `respond` instead of random words:
    `with StandInOpenAI(seed=1, mood="hard") as model: model.base_url`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, latency_s: float = 0.0, *, seed: int = 0,
                 mood: str = "cooperative", **kwargs: Any) -> None:
        self.seed, self.mood = seed, known_mood(mood)  # before its server is bound
        super().__init__(host, port, latency_s, seed=seed, **kwargs)

    def answer(self, body: dict[str, Any], purpose: str | None) -> Any:
        return respond(body, self.seed, self.mood)

    def describe(self) -> str:
        return f"stand-in model ({self.mood}, reads its prompt, seed {self.seed}) on {self.base_url}"


class StandInProcess(ChildProcess):
    """The stand-in in a process of its own whose string hashes are seeded (`PYTHONHASHSEED`, "0"
    unless the caller's environment sets it), for runs that must repeat: a set of strings iterates
    in the order their hashes give, random per process by default, and a frozen stand-in that picks
    from one (blind15's most seen activity) answered the same prompt differently in the next run of
    the same commit. `with StandInProcess(seed=1, mood="blind15") as model: model.base_url`;
    `capture`: the file each chat request is appended to as the model received it (`--capture`)."""

    READY = re.compile(r" on (http://\S+)")
    WHAT = "the stand-in model"
    ENDS_WITH_US = True

    def __init__(self, *, seed: int = 0, mood: str = "cooperative", latency_s: float = 0.0,
                 log_path: Path | None = None, capture: Path | None = None) -> None:
        env = {**os.environ, "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
        super().__init__([sys.executable, "-m", "npc_lab.standin_openai", "--port", "0", "--seed", str(seed),
                          "--mood", known_mood(mood), "--latency", str(latency_s),
                          *(["--capture", str(capture)] if capture else [])], env, log_path)
        self.base_url = ""

    def on_ready(self, match: re.Match[str]) -> None:
        self.base_url = match.group(1)


def main() -> None:
    parser = arguments(__doc__.split("\n\n")[0])
    parser.add_argument("--mood", choices=sorted(MOODS), default="cooperative",
                        help="cooperative: shares and accepts everything; hard: declines, forgets, paraphrases; "
                        "blind, blind2, ...: each written from captured requests alone by another hand, frozen (docs/evaluation.md)")
    args = parser.parse_args()
    serve(StandInOpenAI(args.host, args.port, args.latency, seed=args.seed, mood=args.mood,
                        fault_rate=args.fault_rate, slow_s=args.slow, capture=args.capture), parent_pid=args.parent_pid)


if __name__ == "__main__":
    main()
