"""Memory stores: the embedded Qdrant Edge engine by default (in a process of its own), or
qdrant-client (server or local mode)."""

from __future__ import annotations

from brain_server.config import Settings
from brain_server.storage.base import MemoryStore, StoreLockedError
from brain_server.storage.edge import EdgeMemoryStore
from brain_server.storage.process import ProcessMemoryStore
from brain_server.storage.qdrant_server import QdrantClientMemoryStore

__all__ = ["EdgeMemoryStore", "MemoryStore", "ProcessMemoryStore", "QdrantClientMemoryStore", "StoreLockedError",
           "open_store"]


def open_store(settings: Settings, dim: int) -> MemoryStore:
    """qdrant_url -> Qdrant server/cluster; qdrant_path -> qdrant-client local mode; else embedded
    Edge, in a process of its own (`storage/process.py`)."""
    if settings.qdrant_url:
        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantClientMemoryStore(dim, settings.collection, url=settings.qdrant_url, api_key=api_key)
    if settings.qdrant_path is not None:
        return QdrantClientMemoryStore(dim, settings.collection, path=settings.qdrant_path)
    return ProcessMemoryStore(settings.data_dir / "qdrant", dim, sync_after_s=settings.sync_after_s)
