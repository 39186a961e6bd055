"""A headless world for the brain: the town on a tile grid, a game clock, walking, perception and
object states, driving the brain through its real gRPC transport exactly as Godot does.

`npc-lab sim` runs it (`npc_lab/sim/runner.py`); `measure.py` reads a run folder.
"""
