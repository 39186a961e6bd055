"""Memory stores: the embedded Qdrant Edge engine by default (in a process of its own), or
qdrant-client (server or local mode), imported only when used: qdrant-client alone takes ~0.9 s
to import, which every start of the brain and of the engine's process would pay."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain_server.config import Settings
from brain_server.persistence.storage.base import MemoryStore, StoreLockedError
from brain_server.persistence.storage.edge import EdgeMemoryStore
from brain_server.persistence.storage.process import ProcessMemoryStore

if TYPE_CHECKING:
    from brain_server.persistence.storage.qdrant_server import QdrantClientMemoryStore

__all__ = ["EdgeMemoryStore", "MemoryStore", "ProcessMemoryStore", "QdrantClientMemoryStore", "StoreLockedError",
           "open_store"]


def __getattr__(name: str) -> Any:
    if name == "QdrantClientMemoryStore":
        from brain_server.persistence.storage.qdrant_server import QdrantClientMemoryStore

        return QdrantClientMemoryStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_store(settings: Settings, dim: int) -> MemoryStore:
    """qdrant_url -> Qdrant server/cluster; qdrant_path -> qdrant-client local mode; else embedded
    Edge, in a process of its own (`persistence/storage/process.py`)."""
    if settings.qdrant_url or settings.qdrant_path is not None:
        from brain_server.persistence.storage.qdrant_server import QdrantClientMemoryStore
    if settings.qdrant_url:
        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantClientMemoryStore(dim, settings.collection, url=settings.qdrant_url, api_key=api_key)
    if settings.qdrant_path is not None:
        return QdrantClientMemoryStore(dim, settings.collection, path=settings.qdrant_path)
    return ProcessMemoryStore(settings.data_dir / "qdrant", dim, sync_after_s=settings.sync_after_s)
