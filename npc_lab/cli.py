"""The `npc-lab` command: the lab around the brain (the headless sim, the interview evaluation,
the benchmarks, and `play`, the Godot town in the browser with a brain). It starts brains and
drives them as a game would; the brain's own command, `npc-brain`, knows nothing of it."""

from __future__ import annotations

import argparse
from pathlib import Path
import subprocess
import sys
from urllib.parse import urlencode

from brain_server import __version__
from brain_server.cli import load_settings, run_server, server_options
from brain_server.runtime.logs import configure
from npc_lab import bench
from npc_lab.evaluate import cli as eval_cli
from npc_lab.sim import cli as sim_cli

# play builds the checkout's Godot project with the developer harness.
CHECKOUT = Path(__file__).resolve().parent.parent
HARNESS = CHECKOUT / "tools" / "godot_web.py"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="npc-lab", description="The lab around the NPC brain: simulate, "
                                     "evaluate, benchmark and play the demo town.")
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", required=True)
    sim_cli.add_parser(commands)
    eval_cli.add_parser(commands)
    bench.add_arguments(commands.add_parser("bench", help="benchmarks (docs/benchmarks.md)"))
    play = server_options(commands.add_parser(
        "play", help="build the Godot town for the browser and serve it with the brain on one origin"))
    play.add_argument("--time-scale", type=float, default=60.0, help="game seconds per real second (default 60)")
    play.add_argument("--start-time", help="game start, RFC 3339 (default: the project's, 2026-02-13T07:00:00Z)")
    play.add_argument("--no-build", action="store_true", help="serve the last build as it is")
    args = parser.parse_args(argv)
    if args.command == "play":
        _play(args)
        return
    configure(json=False, level="warning")
    {"sim": sim_cli, "eval": eval_cli, "bench": bench}[args.command].run(args)


def _play(args: argparse.Namespace) -> None:
    web = (args.data_dir or Path("data")) / "web"
    if not args.no_build:
        if not HARNESS.is_file():
            sys.exit(f"npc-lab: play builds godot_project/ with tools/godot_web.py, not found at {HARNESS}: "
                     "run it from a source checkout")
        if subprocess.run([sys.executable, str(HARNESS), "build", str(web)], check=False).returncode:
            sys.exit("npc-lab: building the web game failed (see above)")
    args.web_root = web
    settings = load_settings(args)
    query = "?" + urlencode({"time-scale": f"{args.time_scale:g}"}
                            | ({"start-time": args.start_time} if args.start_time else {}))

    def announce(http_url: str) -> None:
        print(f"npc-lab: open {http_url}/{query} to watch the town (Ctrl-C stops)", flush=True)

    run_server(settings, prog="npc-lab", on_ready=announce)


if __name__ == "__main__":
    main()
