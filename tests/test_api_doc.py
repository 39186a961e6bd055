"""docs/api.md is what tools/api_doc.py generates from proto/ now: the reference cannot drift."""

from __future__ import annotations

from pathlib import Path
import subprocess
import sys

from npc_brain.v1 import brain_pb2
from tools import api_doc

ROOT = Path(__file__).resolve().parent.parent


def test_the_api_reference_is_up_to_date() -> None:
    result = subprocess.run([sys.executable, "-m", "tools.api_doc", "--check"], capture_output=True, text=True,
                            timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_reference_names_every_rpc_message_and_field_with_the_proto_s_comments() -> None:
    text = api_doc.render(api_doc.descriptors())
    service = brain_pb2.DESCRIPTOR.services_by_name["BrainService"]
    for method in service.methods:
        assert f"| `{method.name}` |" in text
    for message in brain_pb2.DESCRIPTOR.message_types_by_name.values():
        assert f"#### {message.name}\n" in text
        for field in message.fields:
            assert f"| `{field.name}` |" in text
    assert "Decide stores the NPC's perceptions and answers what it does now." in text
