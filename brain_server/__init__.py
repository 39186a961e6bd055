"""The NPC brain: Generative Agents cognition for Godot NPCs, served over gRPC and Connect."""

from importlib.metadata import PackageNotFoundError, version

try:
    # pyproject.toml is the one place the version is written; installed (or editable) metadata carries it.
    __version__ = version("npc-brain")
except PackageNotFoundError:  # a source tree used without installing: no version to claim
    __version__ = "0+unknown"
