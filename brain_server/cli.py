"""The `npc-brain` command: what a game needs of the brain (serve it, check its setup, show its
settings). The lab's commands (sim, bench, eval, play) are `npc-lab`, which builds on the helpers here."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
import sys

from brain_server import __version__, bundle, settings_cli
from brain_server.config import Settings
from brain_server.runtime.logs import configure

LAB_COMMANDS = ("sim", "eval", "bench", "play")  # npc-brain's until the lab got its own command


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="npc-brain", description="The NPC brain for Godot games.")
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = server_options(commands.add_parser("serve", help="run the brain: gRPC and Connect JSON over HTTP"))
    serve.add_argument("--parent-pid", type=int, metavar="PID",
                       help="stop when process PID is gone (the game that started this brain, crashed or killed)")
    server_options(commands.add_parser(
        "check", help="check the LLM endpoint, embeddings, store and ports as serve would use them; what to fix"))
    server_options(commands.add_parser(
        "config", help="print the effective settings (flags, environment, .env, TOML, defaults), secrets masked"))
    bundle.add_arguments(commands.add_parser(
        "bundle", help="build this OS's self-contained brain folder for a desktop game (PyInstaller)"))
    asked = sys.argv[1:] if argv is None else argv
    if asked[:1] and asked[0] in LAB_COMMANDS:
        sys.exit(f"npc-brain: {asked[0]} is the lab's: npc-lab {asked[0]} (a checkout's tools/setup.sh installs it)")
    args = parser.parse_args(argv)
    if args.command == "bundle":
        bundle.command(args)
        return
    if args.command == "config":
        print(settings_cli.render(settings_cli.load(args)))
        return
    settings = load_settings(args)
    if args.command == "check":
        from brain_server.check import run

        sys.exit(run(settings))
    run_server(settings, prog="npc-brain", parent_pid=args.parent_pid)


def server_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options every command that starts a brain takes: --config and a flag per setting."""
    return settings_cli.add_arguments(parser)


def load_settings(args: argparse.Namespace) -> Settings:
    """The settings the parsed options name (with the config file, environment, .env and defaults),
    logging configured by them; a missing config file or an invalid value exits with one line. A
    command's own options that are not settings are left alone."""
    settings = settings_cli.load(args)
    configure(json=settings.log_json, level=settings.log_level)
    return settings


def run_server(settings: Settings, *, prog: str, on_ready: Callable[[str], None] | None = None,
               parent_pid: int | None = None) -> None:
    """Serve until Ctrl-C, a signal or the end of process `parent_pid`; what stops the start (a port
    in use, a locked store, a missing model) exits with one line. `on_ready` gets the HTTP URL once
    both transports listen."""
    try:
        asyncio.run(_serve(settings, prog, on_ready, parent_pid))
    except KeyboardInterrupt:
        pass


async def _serve(settings: Settings, prog: str, on_ready: Callable[[str], None] | None,
                 parent_pid: int | None) -> None:
    from brain_server.llm.embedded import EmbeddedLLMUnavailable
    from brain_server.llm.minilm import EmbedderUnavailable
    from brain_server.model.errors import ConfigError
    from brain_server.persistence.storage.base import StoreLockedError
    from brain_server.server import serve

    try:
        await serve(settings, on_ready=on_ready, parent_pid=parent_pid)
    except (ConfigError, EmbeddedLLMUnavailable, EmbedderUnavailable, StoreLockedError, OSError) as exc:
        sys.exit(f"{prog}: {exc}")


if __name__ == "__main__":
    main()
