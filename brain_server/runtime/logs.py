"""structlog set-up: a human console by default, JSON lines with --log-json.

A line of a decision's work carries its npc and trace ids because it is logged through the
decision's trace (`Trace.log`), so one decision can be followed through perceive, retrieve, plan
and the LLM calls it made; nothing binds them in a hidden context (two NPCs' Decides interleave
on one loop, and their work hops between loops and tasks). The standard
library's loggers (uvicorn, grpc, qdrant-client, the `warnings` module) are rendered by the same
processors, so a JSON log holds nothing but JSON lines for a collector to parse.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import TextIO, cast

import structlog


def configure(*, json: bool = False, level: str = "info") -> None:
    processors: list[structlog.typing.Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer = structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    if json:
        processors.append(structlog.processors.format_exc_info)
    threshold = logging.getLevelNamesMapping()[level.upper()]
    structlog.configure(
        processors=[*processors, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(threshold),
        logger_factory=structlog.WriteLoggerFactory(file=cast(TextIO, _Stderr())),  # a line in one write
        # Not cached: a cached logger keeps this configuration for good, so a host (or a test) that
        # configures structlog after us, e.g. structlog.testing.capture_logs, would never see our lines.
        cache_logger_on_first_use=False,
    )
    _route_standard_logging(processors, renderer, threshold)


CHATTY_LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2")


def _route_standard_logging(processors: list[structlog.typing.Processor], renderer: structlog.typing.Processor,
                            threshold: int) -> None:
    """The root logger's one handler renders records as structlog's lines, with the logger's name."""
    handler = logging.StreamHandler(_Stderr())
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*processors, structlog.stdlib.add_logger_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    ))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(threshold)
    # The HTTP clients' line per request (every LLM call, at info) is for debugging; the brain logs its calls.
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(threshold if threshold <= logging.DEBUG else max(threshold, logging.WARNING))
    logging.captureWarnings(True)


class _Stderr:
    """sys.stderr as it is when a line is written, not when logging was set up: whoever embeds the
    brain (a test runner, a host process) may replace it, and a closed one must not fail a call.

    Both writers (structlog's and the standard library's handler) write a whole line in one call, and
    one lock orders those calls: a line from uvicorn's thread never lands inside the brain's."""

    _lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

