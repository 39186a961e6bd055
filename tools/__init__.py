"""Developer and CI tooling: the fake LLM endpoint, the Godot web harness, set-up scripts."""
