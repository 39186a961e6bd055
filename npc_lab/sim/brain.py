"""`npc-brain serve` in a subprocess on free loopback ports, for the sim and the benchmarks."""

from __future__ import annotations

from collections.abc import Mapping
import os
from pathlib import Path
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Self

READY = re.compile(r"npc-brain ready grpc=(\S+) http=(\S+)")
ROOT = Path(__file__).resolve().parent.parent.parent


class ChildProcess:
    """A lab process that says when it is ready: started with `command` and `env`, everything it
    prints read at once (a full pipe would stop it) into `log_path`, if given, and through
    `on_line`; `on_ready` gets the match of the first line that matches `READY`. One whose command
    takes `--parent-pid` (`ENDS_WITH_US`) is given this process's: a lab run stopped by a signal
    (a `timeout`, a CI's cancel, `kill`) runs no `finally`, and its brain, the brain's store and
    embedder, and its model endpoint kept running, holding their ports and a core each."""

    READY: re.Pattern[str]
    WHAT = "the process"
    ENDS_WITH_US = False

    def __init__(self, command: list[str], env: Mapping[str, str], log_path: Path | None = None, *,
                 cwd: Path = ROOT) -> None:
        self.command, self.env, self.log_path, self.cwd = command, dict(env), log_path, cwd
        self.proc: subprocess.Popen[str] | None = None
        self.tail: list[str] = []

    def on_line(self, line: str) -> None:
        """Each line it prints; the last 40 are kept for the error when it does not start."""
        self.tail = [*self.tail[-39:], line]

    def on_ready(self, match: re.Match[str]) -> None:
        """Its ready line, read once."""

    def start(self, timeout_s: float = 600) -> Self:
        if self.log_path:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("w") if self.log_path else None
        self.proc = self.spawn()
        ready = threading.Event()

        def pump() -> None:
            assert self.proc and self.proc.stdout
            for line in self.proc.stdout:
                if log:
                    log.write(line)
                    log.flush()
                self.on_line(line.rstrip())
                if not ready.is_set() and (match := self.READY.search(line)):
                    self.on_ready(match)
                    ready.set()
            if log:
                log.close()

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + timeout_s
        while not ready.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.WHAT} did not start:\n" + "\n".join(self.tail))
        return self

    def spawn(self) -> subprocess.Popen[str]:
        """The process, its stdout and stderr one text pipe (the tests fork their brains instead)."""
        ours = ["--parent-pid", str(os.getpid())] if self.ENDS_WITH_US else []
        return subprocess.Popen([*self.command, *ours], cwd=self.cwd, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class BrainProcess(ChildProcess):
    """Starts the brain with the caller's NPC_BRAIN_* environment (unless `inherit_env` is off) plus
    `settings`; its output goes to `log_path`, if given, and through `on_line`. `grpc_target` and
    `http_url` are set once it prints its ready line. `command` runs another installation of the
    brain (an installed `npc-brain serve`), from `cwd`. With `keep_output`, every line it printed
    since it last started is in `output` (tests and the kills bench read its events there)."""

    READY = READY
    WHAT = "the brain"
    ENDS_WITH_US = True  # `npc-brain serve --parent-pid`

    def __init__(self, settings: Mapping[str, object], log_path: Path | None = None, *,
                 inherit_env: bool = True, command: list[str] | None = None, cwd: Path = ROOT,
                 keep_output: bool = False) -> None:
        env = {k: v for k, v in os.environ.items() if inherit_env or not k.startswith("NPC_BRAIN_")}
        env.update({"NPC_BRAIN_GRPC_PORT": "0", "NPC_BRAIN_HTTP_PORT": "0", "NPC_BRAIN_LOG_JSON": "true"})
        env.setdefault("PYTHONHASHSEED", "0")  # runs repeat: nothing the brain does follows per-process hash order
        env.update({f"NPC_BRAIN_{k.upper()}": str(v) for k, v in settings.items() if v is not None})
        super().__init__(command or [sys.executable, "-m", "brain_server.cli", "serve"], env, log_path, cwd=cwd)
        self.grpc_target = ""
        self.http_url = ""
        self.keep_output = keep_output
        self.output: list[str] = []

    def on_line(self, line: str) -> None:
        super().on_line(line)
        if self.keep_output:
            self.output.append(line)

    def on_ready(self, match: re.Match[str]) -> None:
        self.grpc_target, self.http_url = match.group(1), match.group(2)

    def kill(self) -> None:
        """SIGKILL: no chance to flush or close anything."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def restart(self, *, same_ports: bool = True) -> Self:
        """SIGKILL (unless it is gone already), then start again on the same ports, as a supervisor
        would (clients reconnect), or on free ones (a busy machine may have given the old ones away)."""
        self.kill()
        self.output.clear()
        self.env["NPC_BRAIN_GRPC_PORT"] = self.grpc_target.rsplit(":", 1)[1] if same_ports else "0"
        self.env["NPC_BRAIN_HTTP_PORT"] = self.http_url.rsplit(":", 1)[1] if same_ports else "0"
        return self.start()

    def rss_bytes(self) -> int:
        """Resident memory of the brain process (Linux)."""
        if not self.proc:
            return 0
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0
