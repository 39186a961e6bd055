"""The data every layer shares (NPCs, worlds, memories, verbs, traces, checks); imports no other layer."""
