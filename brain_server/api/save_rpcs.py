"""The save-slot RPCs of BrainCore (SaveWorld, LoadWorld, ListSaves, DeleteSave, ExportWorld,
ImportWorld): each checks its names (slot and world names are file names: `validation.slot`,
`validation.file_name`) and hands the work to `saves.Saves` (docs/saves.md)."""

from __future__ import annotations

import asyncio

from brain_server.api import convert
from brain_server.api.saves import Saves
from brain_server.model import validation
from brain_server.persistence.records import Records
from npc_brain.v1 import brain_pb2 as pb


def _names(request: pb.SaveWorldRequest | pb.LoadWorldRequest | pb.DeleteSaveRequest | pb.ExportWorldRequest
           | pb.ImportWorldRequest) -> str:
    """The request's slot, its world's name checked too."""
    slot = validation.slot(request.slot)
    validation.file_name("world_name", validation.name("world_name", request.world_name))
    return slot


class SaveRpcs:
    """Mixed into BrainCore, which sets `saves` and `records`."""

    saves: Saves
    records: Records

    async def save_world(self, request: pb.SaveWorldRequest) -> pb.SaveWorldResponse:
        slot = _names(request)
        when = convert.from_timestamp(request.game_time) if request.HasField("game_time") else None
        info = await self.saves.save(request.world_name, slot, when)
        return pb.SaveWorldResponse(save=convert.save_info_to_pb(info))

    async def load_world(self, request: pb.LoadWorldRequest) -> pb.LoadWorldResponse:
        info = await self.saves.load(request.world_name, _names(request))
        return pb.LoadWorldResponse(save=convert.save_info_to_pb(info), reembedded_memories=info.reembedded)

    async def list_saves(self, request: pb.ListSavesRequest) -> pb.ListSavesResponse:
        validation.name("world_name", request.world_name)
        saves = await asyncio.to_thread(self.saves.files.list, request.world_name)
        return pb.ListSavesResponse(saves=[convert.save_info_to_pb(s) for s in saves])

    async def delete_save(self, request: pb.DeleteSaveRequest) -> pb.DeleteSaveResponse:
        slot = _names(request)
        async with self.records.world_lock(request.world_name):
            deleted = await asyncio.to_thread(self.saves.files.delete, request.world_name, slot)
        return pb.DeleteSaveResponse(deleted=deleted)

    async def export_world(self, request: pb.ExportWorldRequest) -> pb.ExportWorldResponse:
        info, data = await self.saves.export_page(request.world_name, _names(request), request.offset)
        end = request.offset + len(data)
        return pb.ExportWorldResponse(save=convert.save_info_to_pb(info), data=data, next_offset=end,
                                      total_bytes=info.size_bytes, done=end >= info.size_bytes)

    async def import_world(self, request: pb.ImportWorldRequest) -> pb.ImportWorldResponse:
        slot = _names(request)
        received, info = await self.saves.import_page(request.world_name, slot, request.offset, request.data,
                                                      request.total_bytes)
        return pb.ImportWorldResponse(received_bytes=received,
                                      save=convert.save_info_to_pb(info) if info is not None else None)
