"""Domain errors with the status a caller should see; transports map them, never `internal`."""

from __future__ import annotations

from enum import StrEnum
import os


class Status(StrEnum):
    """Connect code names; gRPC status codes of the same names."""

    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    ALREADY_EXISTS = "already_exists"
    FAILED_PRECONDITION = "failed_precondition"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    UNAVAILABLE = "unavailable"
    ABORTED = "aborted"  # the call was ended by another (a Talk, a lockstep Decide by ResetNpc, DeleteNpc or LoadWorld)


MAX_MESSAGE = 1000  # a gRPC status message travels in a header: a long one would turn into resource_exhausted


class BrainError(Exception):
    """An error the caller can fix; the message says how (cut at MAX_MESSAGE characters: messages
    repeat what the caller sent, `validation.shown` keeps that short, this is the last guard)."""

    def __init__(self, status: Status, message: str) -> None:
        if len(message) > MAX_MESSAGE:
            message = message[:MAX_MESSAGE - 15] + " ... (cut here)"
        super().__init__(message)
        self.status = status
        self.message = message


def invalid(message: str) -> BrainError:
    return BrainError(Status.INVALID_ARGUMENT, message)


def not_found(message: str) -> BrainError:
    return BrainError(Status.NOT_FOUND, message)


def root_cause(exc: BaseException) -> str:
    """A connection error's root cause in words: "Connection refused", "Name or service not known"."""
    while exc.__cause__ or exc.__context__:
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
        if isinstance(exc, OSError) and exc.strerror:
            return os.strerror(exc.errno) if exc.errno and exc.errno > 0 else exc.strerror
    return str(exc).strip() or type(exc).__name__


class ConfigError(RuntimeError):
    """A setting is wrong and the brain cannot serve with it: the message names the setting and the fix."""
