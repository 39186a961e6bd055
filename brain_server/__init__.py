"""The NPC brain: Generative Agents cognition for Godot NPCs, served over gRPC and Connect."""

__version__ = "0.1.0"
