"""The embedder of the tests' brains: the static table distilled from MiniLM (NPC_BRAIN_EMBEDDER=static,
brain_server/llm/static_embed.py) unless a test chooses one.

A brain's MiniLM is a process of its own that loads the model (0.6 CPU-s a start and a stop beside
the static table's 0.2), and every text a brain stores or retrieves by costs it ~10 ms where the
table takes microseconds: the brain tests that test what a brain does with its memories, not how
well they are retrieved, paid most of their CPU to it (issue 40). The tests of retrieval and
embeddings, and the brains that a test starts with `embedder="minilm"` (or an embeddings endpoint),
keep theirs (MiniLM's integer kernels built once, into the table's folder); the packaging tests'
installed brains start as a user's do, with MiniLM.

The table is built once into pytest's cache folder (~30 CPU-s on 2 cores) by `tools/setup.sh`, or,
where set-up did not run, by whichever test process needs it first, the others waiting on its lock;
it is named by the hash of the model, tokenizer and recipe, so a new model is a new table."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE_DIR = ROOT / ".pytest_cache" / "d" / "npc-brain-static-table"
# NPC_TESTS_EMBEDDER=minilm runs every test brain on MiniLM, as a user's brain runs by default.
EMBEDDER = os.environ.get("NPC_TESTS_EMBEDDER", "static")
_built: list[Path] = []


def table_dir() -> Path:
    """The folder that holds the built table, built first if it is not there (once, across processes)."""
    if not _built:
        from brain_server.llm.minilm import model_files
        from brain_server.llm.static_embed import STATIC_DIM, StaticModel, table_path

        TABLE_DIR.mkdir(parents=True, exist_ok=True)
        if not table_path(TABLE_DIR, *model_files(None, None), STATIC_DIM).is_file():
            with (TABLE_DIR / ".lock").open("w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # another test process may be building it
                StaticModel(TABLE_DIR)  # built here unless that one did
        _built.append(TABLE_DIR)
    return _built[0]


def brain_env(env: dict[str, str]) -> dict[str, str]:
    """A test brain's environment, set here in place (a test reads what its brain ran with): the
    static table unless it chose its embedder or an endpoint (or NPC_TESTS_EMBEDDER chose MiniLM)."""
    if "NPC_BRAIN_EMBEDDER" not in env and not env.get("NPC_BRAIN_EMBEDDINGS_BASE_URL"):
        env["NPC_BRAIN_EMBEDDER"] = EMBEDDER
        if EMBEDDER == "static":
            env["NPC_BRAIN_EMBEDDINGS_TABLE_DIR"] = str(table_dir())
    if env.get("NPC_BRAIN_EMBEDDER") == "minilm" and not env.get("NPC_BRAIN_EMBEDDINGS_BASE_URL"):
        # MiniLM's integer kernels, built once for every test brain (not once per data folder)
        env.setdefault("NPC_BRAIN_EMBEDDINGS_TABLE_DIR", str(TABLE_DIR))
    return env


def brain_dim() -> int:
    """The size of the vectors the tests' brains store unless a test chooses their embedder."""
    from brain_server.llm.minilm import DIM
    from brain_server.llm.static_embed import STATIC_DIM

    return STATIC_DIM if EMBEDDER == "static" else DIM


if __name__ == "__main__":  # python -m tests.static_table: build it now
    print(table_dir())
