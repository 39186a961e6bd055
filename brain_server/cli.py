"""The `npc-brain` command."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
import sys

from pydantic import ValidationError

from brain_server import __version__
from brain_server.config import Settings
from brain_server.logs import configure


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="npc-brain", description="The NPC brain for Godot games.")
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the brain: gRPC and Connect JSON over HTTP")
    serve.add_argument("--config", type=Path, help="TOML settings file (same keys as NPC_BRAIN_* without prefix)")
    serve.add_argument("--host")
    serve.add_argument("--grpc-port", type=int)
    serve.add_argument("--http-port", type=int)
    serve.add_argument("--data-dir", type=Path)
    serve.add_argument("--web-root", type=Path, help="serve this folder (a Godot web build) at / on the HTTP port")
    serve.add_argument("--log-json", action="store_true", default=None, help="JSON log lines")
    from brain_server.sim import cli as sim_cli

    sim_cli.add_parser(commands)
    from brain_server import bench

    bench.add_arguments(commands.add_parser("bench", help="benchmarks (docs/benchmarks.md)"))
    args = parser.parse_args(argv)
    if args.command in ("sim", "bench"):
        configure(json=False, level="warning")
        (sim_cli if args.command == "sim" else bench).run(args)
        return

    if args.config:
        if not args.config.is_file():
            sys.exit(f"npc-brain: config file {args.config} does not exist")
        os.environ["NPC_BRAIN_CONFIG"] = str(args.config)
    overrides = {k: v for k, v in vars(args).items() if v is not None and k not in ("command", "config")}
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        sys.exit(f"npc-brain: invalid settings: {exc}")
    configure(json=settings.log_json, level=settings.log_level)
    try:
        asyncio.run(_serve(settings))
    except KeyboardInterrupt:
        pass


async def _serve(settings: Settings) -> None:
    from brain_server.llm.embedded import EmbeddedLLMUnavailable
    from brain_server.server import serve
    from brain_server.storage.base import StoreLockedError

    try:
        await serve(settings)
    except (EmbeddedLLMUnavailable, StoreLockedError, OSError) as exc:
        sys.exit(f"npc-brain: {exc}")


if __name__ == "__main__":
    main()
