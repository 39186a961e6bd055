"""The `npc-brain` command."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
import subprocess
import sys
from urllib.parse import urlencode

from brain_server import __version__, settings_cli
from brain_server.config import Settings
from brain_server.logs import configure


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="npc-brain", description="The NPC brain for Godot games.")
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", required=True)
    _server_options(commands.add_parser("serve", help="run the brain: gRPC and Connect JSON over HTTP"))
    play = _server_options(commands.add_parser(
        "play", help="build the Godot town for the browser and serve it with the brain on one origin"))
    play.add_argument("--time-scale", type=float, default=60.0, help="game seconds per real second (default 60)")
    play.add_argument("--start-time", help="game start, RFC 3339 (default: the project's, 2026-02-13T07:00:00Z)")
    play.add_argument("--no-build", action="store_true", help="serve the last build as it is")
    _server_options(commands.add_parser(
        "check", help="check the LLM endpoint, embeddings, store and ports as serve would use them; what to fix"))
    _server_options(commands.add_parser(
        "config", help="print the effective settings (flags, environment, .env, TOML, defaults), secrets masked"))
    from npc_lab.sim import cli as sim_cli

    sim_cli.add_parser(commands)
    from npc_lab.evaluate import cli as eval_cli

    eval_cli.add_parser(commands)
    from npc_lab import bench

    bench.add_arguments(commands.add_parser("bench", help="benchmarks (docs/benchmarks.md)"))
    args = parser.parse_args(argv)
    if args.command in ("sim", "eval", "bench"):
        configure(json=False, level="warning")
        {"sim": sim_cli, "eval": eval_cli, "bench": bench}[args.command].run(args)
        return

    settings = settings_cli.load(args)
    if args.command == "config":
        print(settings_cli.render(settings))
        return
    page_query = ""
    if args.command == "play":
        web = settings.data_dir / "web"
        page_query = _build_game(args, web)
        settings = settings.model_copy(update={"web_root": web})
    configure(json=settings.log_json, level=settings.log_level)
    if args.command == "check":
        from brain_server.check import run

        sys.exit(run(settings))
    try:
        asyncio.run(_serve(settings, page_query))
    except KeyboardInterrupt:
        pass


def _server_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    return settings_cli.add_arguments(parser)


def _build_game(args: argparse.Namespace, web_dir: Path) -> str:
    """Build the web game with the repository's harness; the query string the page should get."""
    harness = Path(__file__).resolve().parent.parent / "tools" / "godot_web.py"
    if not args.no_build:
        if not harness.is_file():
            sys.exit("npc-brain: play builds godot_project/ with tools/godot_web.py: run it from a source checkout")
        built = subprocess.run([sys.executable, str(harness), "build", str(web_dir)], check=False)
        if built.returncode:
            sys.exit("npc-brain: building the web game failed (see above)")
    query = {"time-scale": f"{args.time_scale:g}"} | ({"start-time": args.start_time} if args.start_time else {})
    return "?" + urlencode(query)


async def _serve(settings: Settings, page_query: str = "") -> None:
    from brain_server.errors import ConfigError
    from brain_server.llm.embedded import EmbeddedLLMUnavailable
    from brain_server.llm.embeddings import EmbedderUnavailable
    from brain_server.server import serve
    from brain_server.storage.base import StoreLockedError

    def announce(http_url: str) -> None:
        print(f"npc-brain: open {http_url}/{page_query} to watch the town (Ctrl-C stops)", flush=True)

    try:
        await serve(settings, on_ready=announce if page_query else None)
    except (ConfigError, EmbeddedLLMUnavailable, EmbedderUnavailable, StoreLockedError, OSError) as exc:
        sys.exit(f"npc-brain: {exc}")


if __name__ == "__main__":
    main()
