"""The Godot town (godot_project/) in the real Godot 4.6 engine: its web build in headless
Chromium, talking to a real brain over Connect JSON, checked through the engine's console.

The console protocol: every `NPCBRAIN {json}` line is an event the game prints (see
godot_project/brain/event_log.gd); tools/godot_web.py builds, serves (via the brain) and runs it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
import functools
import http.server
import json
import os
from pathlib import Path
import re
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile

import pytest

from npc_lab.standin_openai import StandInOpenAI
from tests.ports import unclaimed_port
from tests.waits import wait_until
from tools import godot_web

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "godot_project"
ARTIFACTS = ROOT / "test-artifacts"
# How long a page may take to boot and have its first Decide answered: generous (a hang guard; another
# engine and a brain may share the two cores), and a failure names which step it was.
BOOT_LIMIT_S = 300
# The whole Ville session: 417 s in the suite on 2 loaded cores, 31 s alone.
VILLE_TIMEOUT_S = 1500


def _gdlint() -> str | None:
    beside_python = Path(sys.executable).parent / "gdlint"
    return str(beside_python) if beside_python.exists() else shutil.which("gdlint")


def test_every_gdscript_file_passes_gdlint() -> None:
    gdlint = _gdlint()
    if gdlint is None:
        pytest.skip("gdlint (gdtoolkit) is not installed")
    scripts = sorted(str(p) for p in PROJECT.rglob("*.gd") if ".godot" not in p.parts) + [str(godot_web.DRAW_SCRIPT)]
    assert scripts, "no GDScript files found"
    done = subprocess.run([gdlint, *scripts], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_pack_holds_the_project_and_its_class_cache(tmp_path: Path) -> None:
    pck = tmp_path / "game.pck"
    paths = godot_web.build_pack(PROJECT, pck)
    files = godot_web.read_pck(pck)
    assert list(files) == paths
    assert {"project.godot", "main.tscn", "npc/npc.tscn", "addons/npc_brain/plugin.cfg",
            "addons/npc_brain/world/npc_brain_world.gd"} <= set(files)
    assert not [p for p in files if p.endswith((".import", ".uid")) or p.startswith(".godot/imported")]
    cache = files[godot_web.CLASS_CACHE_PATH].decode()
    for name, base, tool in [("NpcBrainWorld", "Node2D", True), ("NpcBrainArena", "NpcBrainWorldPart", True),
                             ("NpcBrainObject", "NpcBrainWorldPart", True), ("VilleNpc", "Node2D", True),
                             ("NpcBrainAgent", "Node", True), ("NpcBrainClient", "Node", False)]:
        assert (f'"base": &"{base}",\n"class": &"{name}",' in cache
                and f'"is_tool": {str(tool).lower()},\n"language": &"GDScript"' in
                cache.split(f'"class": &"{name}"', 1)[1].split("}", 1)[0]), name


def test_a_pack_built_to_draw_less_draws_first_and_only_when_asked(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite's pages draw once a second (tests/conftest.py): the draw autoload comes first
    in the pack's project.godot, with the rate asked; a pack built without it is the project as is."""
    godot_web.build_pack(PROJECT, tmp_path / "drawn.pck", draw_hz=2.5)
    files = godot_web.read_pck(tmp_path / "drawn.pck")
    autoloads = files["project.godot"].decode().split("[autoload]\n", 1)[1].strip().splitlines()
    assert autoloads[0] == f'{godot_web.DRAW_AUTOLOAD}="*res://{godot_web.DRAW_PATH}"'
    assert "NpcBrain=" in "\n".join(autoloads[1:])
    assert "const HZ := 2.5\n" in files[godot_web.DRAW_PATH].decode()
    godot_web.build_pack(PROJECT, tmp_path / "plain.pck")
    plain = godot_web.read_pck(tmp_path / "plain.pck")
    assert godot_web.DRAW_PATH not in plain and plain["project.godot"] == (PROJECT / "project.godot").read_bytes()
    monkeypatch.setenv(godot_web.DRAW_HZ_ENV, "4")
    web = godot_web.build_web(tmp_path / "web", PROJECT)
    assert "const HZ := 4.0\n" in godot_web.read_pck(web / "game.pck")[godot_web.DRAW_PATH].decode()
    assert godot_web.autoloaded("[application]\n", "A", "a.gd") == '[application]\n\n[autoload]\n\nA="*res://a.gd"\n'


def test_runtime_with_the_wrong_hash_is_refused_and_not_kept(tmp_path: Path, monkeypatch) -> None:
    def fake_npm_pack(destination: Path) -> Path:
        tarball = destination / "tampered.tgz"
        tarball.write_bytes(b"not the pinned Godot runtime")
        return tarball

    monkeypatch.setattr(godot_web, "_npm_pack", fake_npm_pack)
    with pytest.raises(godot_web.RuntimeIntegrityError):
        godot_web.ensure_runtime(tmp_path / "cache")
    leftovers = [p.name for p in (tmp_path / "cache").rglob("*")]
    assert not [name for name in leftovers if name.endswith((".tgz", ".wasm", ".js"))], leftovers


def test_uid_text_decodes_like_the_engine() -> None:
    # ResourceUID::text_to_id: base 34, 'a'.. = 0.., '0'.. = 25..
    assert godot_web.uid_text_to_id("uid://a") == 0
    assert godot_web.uid_text_to_id("uid://ba") == 34
    assert godot_web.uid_text_to_id("uid://0") == 25
    assert godot_web.uid_text_to_id("uid://b1") == 34 + 26


def test_pack_carries_editor_uids_so_uid_references_resolve(tmp_path: Path) -> None:
    # After the editor saves the project, scenes reference scripts and scenes by uid:// too; the
    # runtime resolves those through .godot/uid_cache.bin (without it: "invalid UID" warnings).
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns(".godot"))
    (project / "npc" / "ville_npc.gd.uid").write_text("uid://c3mindscript\n")
    scene = project / "npc" / "npc.tscn"
    scene.write_text(scene.read_text().replace("format=3]", 'format=3 uid="uid://b7x2npcscene"]', 1))
    files = godot_web.read_pck(_built(project, tmp_path / "game.pck"))
    assert "npc/ville_npc.gd.uid" not in files
    cache = _uid_cache(files[godot_web.UID_CACHE_PATH])
    assert cache[godot_web.uid_text_to_id("uid://c3mindscript")] == "res://npc/ville_npc.gd"
    assert cache[godot_web.uid_text_to_id("uid://b7x2npcscene")] == "res://npc/npc.tscn"
    assert len(cache) == len(list(project.rglob("*.gd"))) + 1  # every script's sidecar, and the scene


def _uid_cache(data: bytes) -> dict[int, str]:
    """`.godot/uid_cache.bin` read as ResourceUID::load_from_cache reads it."""
    count, at, out = int.from_bytes(data[:4], "little"), 4, {}
    for _ in range(count):
        uid, length = struct.unpack_from("<qI", data, at)
        out[uid] = data[at + 12:at + 12 + length].decode()
        at += 12 + length
    assert at == len(data)
    return out


def test_uid_text_encodes_like_the_engine() -> None:
    # ResourceUID::id_to_text, the inverse of text_to_id.
    for text in ("uid://a", "uid://ba", "uid://0", "uid://b1", "uid://c3mindscript"):
        assert godot_web.uid_id_to_text(godot_web.uid_text_to_id(text)) == text
    assert godot_web.uid_id_to_text(34 + 26) == "uid://b1"


def test_every_script_has_its_committed_uid_and_the_pack_resolves_them(tmp_path: Path) -> None:
    # Godot 4.4+ gives each script a `.gd.uid` sidecar and references it by uid once saved: an
    # addon without them gets new, different ones in every project that opens it.
    scripts = sorted(p for p in PROJECT.rglob("*.gd") if ".godot" not in p.parts)
    texts = {p: p.with_name(p.name + ".uid").read_text(encoding="utf-8").strip() for p in scripts}
    assert len(set(texts.values())) == len(scripts), "two scripts share a uid"
    for text in texts.values():
        assert godot_web.uid_id_to_text(godot_web.uid_text_to_id(text)) == text
    assert godot_web.write_missing_uids(PROJECT) == []
    cache = _uid_cache(godot_web.read_pck(_built(PROJECT, tmp_path / "game.pck"))[godot_web.UID_CACHE_PATH])
    for script, text in texts.items():
        assert cache[godot_web.uid_text_to_id(text)] == "res://" + script.relative_to(PROJECT).as_posix()


def test_the_addon_folder_is_ready_for_the_asset_library() -> None:
    # Everything a game needs is inside addons/npc_brain: the plugin, its guide and its license.
    addon = godot_web.ADDON_DIR
    plugin = (addon / "plugin.cfg").read_text(encoding="utf-8")
    for key in ("name", "description", "author", "version", "script"):
        assert re.search(rf'^{key}="[^"]+"$', plugin, re.M), key
    assert (addon / "LICENSE").read_text(encoding="utf-8").split()[:3] == ["Apache", "License", "Version"]
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert (addon / "README.md").exists()
    outside = [p for p in addon.rglob("*.gd") if "res://" in p.read_text(encoding="utf-8")
               and re.search(r'res://(?!addons/npc_brain/)', p.read_text(encoding="utf-8"))]
    assert not outside, outside


def test_the_addon_zip_holds_the_addon_as_the_asset_library_installs_it(tmp_path: Path) -> None:
    # One top folder, then addons/npc_brain/: the Asset Library installer drops the top folder, so a
    # project gets res://addons/npc_brain/ with every script, .uid, icon, the guide and LICENSE.
    names = godot_web.addon_zip(tmp_path / "addon.zip")
    assert names == sorted(names) and all(n.startswith("npc-brain/addons/npc_brain/") for n in names), names[:3]
    inside = {n.removeprefix("npc-brain/") for n in names}
    addon = {"addons/npc_brain/" + p.relative_to(godot_web.ADDON_DIR).as_posix()
             for p in godot_web.ADDON_DIR.rglob("*") if p.is_file()}
    assert inside == addon
    assert {"addons/npc_brain/plugin.cfg", "addons/npc_brain/LICENSE", "addons/npc_brain/README.md",
            "addons/npc_brain/runtime/npc_brain_agent.gd.uid"} <= inside
    assert (tmp_path / "addon.zip").read_bytes() == (godot_web.addon_zip(tmp_path / "again.zip") and
                                                    (tmp_path / "again.zip").read_bytes())
    with zipfile.ZipFile(tmp_path / "addon.zip") as archive:
        assert archive.read("npc-brain/addons/npc_brain/plugin.cfg") == (godot_web.ADDON_DIR / "plugin.cfg").read_bytes()


def _built(project: Path, pck: Path) -> Path:
    godot_web.build_pack(project, pck)
    return pck


def _needs_browser() -> None:
    if not Path(godot_web.CHROMIUM).exists():
        pytest.skip(f"{godot_web.CHROMIUM} is not installed (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api")


@pytest.mark.godot
@pytest.mark.slow
def test_the_committed_town_layout_is_what_the_engine_exports() -> None:
    """The headless sim walks godot_project/data/town_layout.json: it must be the scene as the
    engine lays it out now, or the sim's distances drift from the game's."""
    _needs_browser()
    exported = godot_web.export_town()
    committed = godot_web.TOWN_LAYOUT_PATH.read_text(encoding="utf-8")
    assert godot_web.layout_text(exported) == committed, (
        "godot_project/data/town_layout.json is not what the engine exports from the scene now: run "
        "`python -m tools.godot_web export-town` and commit the file")
    world = exported["world"]
    assert world["width"] > 0 and world["height"] > 0 and len(world["sectors"]) == 19 and exported["walls"]
    walls = {tuple(t) for t in exported["walls"]}
    floors = {(t["x"], t["y"]) for s in world["sectors"] for a in s["arenas"] for t in a["tiles"]}
    assert floors and not floors & walls, "no arena floor is a wall"


def test_godot_town_never_overwrites_a_scene_edited_in_the_editor(tmp_path: Path) -> None:
    from tools import godot_town

    scene = tmp_path / "the_ville.tscn"
    assert godot_town.generate(out=scene)["written"] == "new"
    generated = scene.read_text()
    assert godot_town.generate(out=scene)["written"] == "unchanged"
    edited = generated.replace('sector_name = "Hobbs Cafe"', 'sector_name = "Hobbs Bakery"', 1)
    scene.write_text(edited)
    with pytest.raises(godot_town.EditedSceneError):
        godot_town.generate(out=scene)
    assert godot_town.main(["--out", str(scene)]) == 1 and scene.read_text() == edited
    assert godot_town.generate(out=scene, force=True)["written"] == "replaced"
    assert scene.read_text() == generated and (tmp_path / "the_ville.tscn.orig").read_text() == edited


def test_layout_text_is_json_and_diff_friendly() -> None:
    layout = {"world": {"name": "w", "sectors": [{"name": str(i), "tiles": [{"x": i, "y": j} for j in range(40)]}
                                                 for i in range(3)]}, "walls": [[i, 0] for i in range(100)]}
    text = godot_web.layout_text(layout)
    assert json.loads(text) == layout and text.endswith("\n")
    assert max(len(line) for line in text.splitlines()) <= 110 and text.count("\n") < 60  # not one line per tile (220)


def _failed_calls(events: list[dict]) -> list[dict]:
    """The game's failed calls to the brain; a call that timed out counts only when the brain never
    answered a Decide: another engine and a brain starting beside it can hold a DecideBatch past
    its 15 s (the HUD then says slow, not offline), and the test may stop, an NPC having arrived,
    before the next one is answered (stop 60 and the suite's own load: it failed so twice)."""
    answered = any(e["event"] == "decision" for e in events)
    return [e for e in events if e["event"] == "brain_error" and not (e["code"] == "deadline_exceeded" and answered)]


def _reached(hud: dict) -> bool:
    """The HUD's first word on the brain says it answered: online, or slow when the machine's load
    made a call take seconds (how long is the machine's business, not the test's); never offline."""
    return (hud["state"], hud["text"].split(" ")[1]) in {("ONLINE", "online"), ("SLOW", "slow")} \
        and hud["text"].startswith("brain ")


def _tiles_by_address(world: dict) -> dict[str, set[tuple[int, int]]]:
    """Every arena's and object's address in a registered World -> its tiles."""
    tiles: dict[str, set[tuple[int, int]]] = {}
    for sector in world["sectors"]:
        for arena in sector["arenas"]:
            arena_address = f'{world["name"]}:{sector["name"]}:{arena["name"]}'
            tiles[arena_address] = {(t.get("x", 0), t.get("y", 0)) for t in arena["tiles"]}
            for item in arena.get("objects", []):
                tiles[f'{arena_address}:{item["name"]}'] = {(t.get("x", 0), t.get("y", 0))
                                                             for t in item["tiles"]}
    return tiles


def _arrived_where_decided(events: list[dict]) -> bool:
    """True once an NPC has arrived where a decision sent it and no call is failed (a timeout on a
    loaded machine is not, once the brain has answered a Decide: _failed_calls), or as soon as the brain
    rejects a call (the game would retry forever; the test has seen enough)."""
    pending: dict[str, str] = {}
    arrived = False
    for event in events:
        if event["event"] == "decision":
            pending[event["npc"]] = event["address"]
        elif event["event"] == "arrived" and pending.get(event["npc"]) == event["address"]:
            arrived = True
        elif _refused(event):
            return True
    return arrived and not _failed_calls(events)


def _refused(event: dict) -> bool:
    """Whether an event is the brain rejecting a call (not a timeout or an unreachable brain)."""
    return event["event"] == "brain_error" and event["code"] not in ("unavailable", "deadline_exceeded")


def _all_spawned(events: list[dict]) -> bool:
    """True once every NPC the town registered has spawned: each waits its own turn (up to a second
    of spread) before it does, so the first arrival can come before the last spawn (a loaded run
    saw three of 25 still waiting). True too once the brain rejects a call, as `_arrived_where_decided`."""
    if any(_refused(e) for e in events):
        return True
    registered = [e for e in events if e["event"] == "world_registered"]
    spawned = {e["npc"] for e in events if e["event"] == "npc_spawned"}
    return bool(registered) and set(registered[0]["npcs"]) <= spawned


@pytest.mark.godot
@pytest.mark.slow
def test_town_registers_decides_and_walks_for_a_guarded_brain(brain_factory, tmp_path: Path) -> None:
    """The Ville in the real engine against a brain with NPC_BRAIN_AUTH_TOKEN: without `?token=`
    the game is refused; with it the town registers, its NPCs spawn, decide and walk onto the tiles
    of the addresses decided, every call carries the bearer token, calls about one NPC carry
    `x-npc-id`, and the console never shows it. One page serves both (issue 40: a page of its own
    for the open brain cost a minute of the suite; the token changes no other step of the game)."""
    _needs_browser()
    token = "godot-test-token-7f3a"
    web_dir = godot_web.build_web(tmp_path / "web")
    brain = brain_factory(web_root=web_dir, auth_token=token)

    # run_headless has no wait floor: the boot's limit (a loaded machine boots the Ville for minutes);
    # it stops at the refusal.
    refused = godot_web.run_headless(f"{brain.http_url}/", timeout_s=BOOT_LIMIT_S, until=lambda line: any(
        e["event"] == "brain_error" for e in godot_web.event_lines([line])))
    errors = [e for e in godot_web.event_lines(refused) if e["event"] == "brain_error"]
    assert errors and errors[0]["method"] == "RegisterWorld" and errors[0]["code"] == "unauthenticated", refused[-20:]

    sent: list[tuple[str, dict[str, str], dict]] = []

    def on_request(request) -> None:  # playwright Request
        if "/npc_brain.v1.BrainService/" in request.url:
            sent.append((request.url.rsplit("/", 1)[1], request.headers, json.loads(request.post_data or "{}")))

    screenshot = ARTIFACTS / "godot-town.png"
    with godot_web.HeadlessGame(f"{brain.http_url}/?time-scale=60&token={token}") as game:
        game.page.on("request", on_request)
        arrived = game.wait_until(lambda: _arrived_where_decided(game.events) and _all_spawned(game.events),
                                  timeout_s=BOOT_LIMIT_S)
        game.screenshot(screenshot)
    lines, events = game.lines, game.events
    (ARTIFACTS / "godot-town-console.log").write_text("\n".join(lines) + "\n")
    transcript = "\n".join(lines[-60:])
    assert arrived, ("no NPC arrived where a decision sent it, or not every NPC spawned (boot, first Decide "
                     f"or walk):\n{transcript}")

    assert any("Godot Engine v4.6" in line for line in lines), transcript
    client = next(e for e in events if e["event"] == "brain_client")
    assert client["base_url"] == brain.http_url, "a web build talks to its page's own origin"
    assert client["token"] is True

    registered = [e for e in events if e["event"] == "world_registered"]
    assert registered, transcript
    world = registered[0]["world"]
    assert registered[0]["response"]["worldName"] == world["name"] == "the Ville"
    assert len(world["sectors"]) >= 2
    spawned = {e["npc"] for e in events if e["event"] == "npc_spawned"}
    assert spawned == set(registered[0]["npcs"]), transcript

    tiles = _tiles_by_address(world)
    decided: dict[str, str] = {}
    walked = []
    for event in events:
        if event["event"] == "decision":
            assert event["trace"], event
            assert event["address"] in tiles, f"decision to an address not in the world: {event}"
            decided[event["npc"]] = event["address"]
        elif event["event"] == "arrived" and decided.get(event["npc"]) == event["address"]:
            assert tuple(event["tile"]) in tiles[event["address"]], (
                f"{event['npc']} arrived at {event['tile']}, not a tile of {event['address']}")
            walked.append(event)
    assert walked, f"no NPC arrived where a decision sent it:\n{transcript}"

    assert not _failed_calls(events), transcript
    hud = [e for e in events if e["event"] == "hud_status"]
    assert hud and _reached(hud[0]), hud
    assert not [e for e in hud if "OFFLINE" in e["text"]], hud
    assert not godot_web.engine_problems(lines), "\n".join(godot_web.engine_problems(lines))
    assert screenshot.stat().st_size > 10_000

    assert all(token not in line for line in lines + refused), "the token reached the console"
    assert {"SpawnNpc", "DecideBatch"} <= {method for method, _, _ in sent}, sent
    for method, headers, body in sent:
        assert headers.get("authorization") == f"Bearer {token}", method
        assert headers.get("x-npc-id") == body.get("npcId"), (method, headers, body)  # none on a batch


def _trace_work(http_url: str, decision: dict) -> int:
    """Retrieved memories plus LLM calls in a decision event's trace, asked of the brain."""
    request = urllib.request.Request(
        f"{http_url}/npc_brain.v1.BrainService/GetTrace", headers={"Content-Type": "application/json"},
        data=json.dumps({"traceId": decision["trace"], "npcId": decision["npc"]}).encode())
    # A hang guard: in lockstep GetTrace waits its turn on the mind's loop behind the town's Decides.
    with urllib.request.urlopen(request, timeout=godot_web.WAIT_FLOOR_S) as response:
        trace = json.load(response).get("trace", {})
    return len(trace.get("retrieved", [])) + len(trace.get("llmCalls", []))


def _walked_to_decided(events: list[dict]) -> set[str]:
    """NPCs that arrived at (a tile of) an address the brain chose for them."""
    decided: dict[str, str] = {}
    walked = set()
    for event in events:
        if event["event"] == "decision":
            decided[event["npc"]] = event["address"]
        elif event["event"] == "arrived" and decided.get(event["npc"]) == event["address"]:
            walked.add(event["npc"])
    return walked


@pytest.mark.godot
@pytest.mark.slow
@pytest.mark.timeout(VILLE_TIMEOUT_S)
def test_the_ville_lives_talks_is_inspected_and_survives_the_brain(brain_factory, fake_llm, tmp_path: Path) -> None:
    """One session of the whole game: the 19-sector town reaches the brain intact, 25 residents
    walk where the brain sends them, two NPCs talk in bubbles, the inspector shows a trace, a
    whisper and a player's line round-trip, an object's state is edited, the brain is killed and
    restarted mid-run, and screenshots are kept."""
    _needs_browser()
    town = json.loads((PROJECT / "data" / "town.json").read_text())
    residents = sorted((PROJECT / "data" / "residents").glob("*.json"))
    web_dir = godot_web.build_web(tmp_path / "web")
    brain = brain_factory(web_root=web_dir, http_port=unclaimed_port())
    # A conversation must not hang on the fake's seeded answers (a prompt's wording changes them):
    # the first reactions choose to talk (some land on a busy partner and come to nothing), and the
    # first lines keep the conversation going, so each conversation they start has both speaking.
    fake_llm.queue(*[{"json": {"choice": "talk", "reason": "wants to say hello", "new_activity": ""}}] * 12,
                   purpose="react")
    fake_llm.queue(*[{"json": {"utterance": "Good morning! How is your day going?", "end_conversation": False}}] * 16,
                   purpose="converse_turn")
    started = time.monotonic()

    def kinds(kind: str, since: int = 0) -> list[dict]:
        return [e for e in game.events[since:] if e["event"] == kind]

    with godot_web.HeadlessGame(f"{brain.http_url}/?time-scale=300") as game:
        try:
            registered = game.wait_for(lambda e: e["event"] == "world_registered", timeout_s=60)
            assert registered, "\n".join(game.lines[-40:])
            world = registered["world"]
            expected = {(s["name"], a["name"], o if isinstance(o, str) else o["name"])
                        for s in town["sectors"] for a in s["arenas"] for o in a["objects"]}
            sent = {(s["name"], a["name"], o["name"])
                    for s in world["sectors"] for a in s["arenas"] for o in a.get("objects", [])}
            assert world["name"] == town["name"] and sent == expected
            assert len(world["sectors"]) == 19
            response = registered["response"]
            assert (response["sectorCount"], response["arenaCount"], response["objectCount"]) == (
                19, sum(len(s["arenas"]) for s in town["sectors"]), len(expected))
            assert len(registered["npcs"]) == len(residents) == 25

            # Every resident walks to at least one address the brain chose; two NPCs talk. A loaded
            # machine may take minutes (the residents wake at their plans' hours, on a game clock a
            # starved page runs slowly); the wait gives up only when nobody decides, walks or speaks.
            def walked_and_spoke() -> tuple[int, int]:
                return len(_walked_to_decided(game.events)), len({e["npc"] for e in kinds("speech")})

            def living() -> tuple[int, int, int]:
                return (*walked_and_spoke(), len(kinds("decision")))

            assert game.wait_until(lambda: (n := walked_and_spoke())[0] == 25 and n[1] >= 2,
                                   timeout_s=BOOT_LIMIT_S, progress=living), (
                f"walked: {sorted(_walked_to_decided(game.events))}, speech: {kinds('speech')[:4]}, "
                f"decisions: {len(kinds('decision'))}\n" + "\n".join(game.lines[-40:]))
            game.screenshot(ARTIFACTS / "godot-ville-morning.png")
            first_time = next(e for e in reversed(game.events) if "game_time" in e)["game_time"]
            tiles = _tiles_by_address(world)
            for event in kinds("arrived"):
                if event["address"] in tiles:
                    assert tuple(event["tile"]) in tiles[event["address"]], event

            # Pause, and among the paused town's latest decisions find one that did more than take the
            # plan's next step (GetTrace says it retrieved memories or called the LLM), by an NPC with
            # no one on its spot (a click picks the nearest NPC: a couple share a one-tile bed); click
            # it: the inspector shows that decision. None yet: play on until more decisions come. The
            # wait is counted in decisions, not seconds (CI's loaded page made no such decision in the
            # 2 minutes after a decision that worked was first awaited).
            def paused_on_work() -> tuple[dict, dict] | None:
                pressed_at = len(game.events)
                game.press("Space")
                paused = game.wait_for(lambda e: e["event"] == "clock" and e["paused"], timeout_s=10,
                                       since=pressed_at)
                assert paused, "the game did not pause:\n" + "\n".join(game.lines[-40:])
                on_screen = paused["npcs_on_screen"]
                latest = {e["npc"]: e for e in kinds("decision")}  # so far: one on its way may land after
                for npc, decision in latest.items():
                    if npc not in on_screen:
                        continue
                    bx, by = on_screen[npc]
                    alone = all(abs(ox - bx) + abs(oy - by) > 1.0 for other, (ox, oy) in on_screen.items()
                                if other != npc)
                    if alone and _trace_work(brain.http_url, decision) > 0:
                        return decision, paused
                game.press("Space")  # resume
                return None

            opened = None
            for _ in range(40):
                if found := paused_on_work():
                    busy, paused = found
                    npc_id = busy["npc"]
                    clicked_at = len(game.events)
                    game.click(*paused["npcs_on_screen"][npc_id])
                    opened = game.wait_for(lambda e: e["event"] == "inspector_opened", timeout_s=20, since=clicked_at)
                    assert opened and opened["npc"] == npc_id and opened["trace_ok"], opened
                    if opened["trace"] == busy["trace"]:
                        break
                    # A decision on its way when the game paused landed after it (CI's did): the
                    # inspector rightly shows that one. Close it, play on and look again.
                    game.press("Escape")
                    game.press("Space")
                    opened = None
                more = len(kinds("decision")) + 5
                assert game.wait_until(lambda more=more: len(kinds("decision")) >= more), (
                    "the town stopped deciding:\n" + "\n".join(game.lines[-40:]))
            assert opened, "no latest decision that retrieved memories or called the LLM was inspected in 40 pauses"
            assert opened["retrieved"] > 0 or opened["llm_calls"] > 0, opened
            assert opened["memories"] > 0, opened
            assert opened["usage_ok"] and opened["fallbacks"].startswith("[b]Fallbacks:[/b] "), opened
            game.pump(0.5)
            game.screenshot(ARTIFACTS / "godot-inspector.png")

            # Whisper (Enter in the line), then Talk as the player: both round-trip.
            controls = opened["controls"]
            game.click(*controls["input"])
            game.type("There is a surprise party at Hobbs Cafe tonight")
            game.press("Enter")
            whispered = game.wait_for(lambda e: e["event"] == "whisper", timeout_s=20)
            assert whispered and whispered["ok"] and whispered["memory_id"], whispered
            game.click(*controls["input"])
            game.type("Hello, how are you today?")
            game.click(*controls["Talk"])
            talked = game.wait_for(lambda e: e["event"] == "talk", timeout_s=30)
            assert talked and talked["ok"] and talked["reply"], talked
            assert game.wait_for(lambda e: e["event"] == "speech" and e["npc"] == npc_id
                                 and e["text"] == talked["reply"], timeout_s=5)
            game.press("Escape")  # closes the inspector
            resumed_at = len(game.events)
            # Once on a loaded machine the line lost the keyboard as the talk's words were typed, and
            # the space reached the HUD, which resumed the game then (issue 40, not yet explained):
            # Space here resumes a game still paused.
            if kinds("clock")[-1]["paused"]:
                game.press("Space")  # resume
                assert game.wait_for(lambda e: e["event"] == "clock" and not e["paused"], since=resumed_at), (
                    "the game did not resume after the inspector closed:\n" + "\n".join(game.lines[-40:]))
            assert not kinds("clock")[-1]["paused"], "\n".join(game.lines[-40:])

            # The brain dies mid-run: the HUD says offline, NPCs keep their actions, no pile-up;
            # once it is back they resume.
            brain.kill()
            killed_at, down_since = len(game.events), time.monotonic()
            down = game.wait_for(lambda e: e["event"] == "brain_status" and not e["reachable"],
                                 timeout_s=30, since=killed_at)
            assert down
            # A DecideBatch the brain answered as it was killed may land after the kill, never after
            # the game saw the brain down.
            down_at = killed_at + game.events[killed_at:].index(down)
            game.pump(4)
            # Backoff, no retry storm: each NPC waits twice as long after each failure (a batch
            # lane's count of failures says nothing: it carries whichever NPCs are due).
            tries: dict[str, list[float]] = {}
            for retry in kinds("backing_off", killed_at):
                tries.setdefault(retry["npc"], []).append(retry["retry_in_s"])
            down_s = time.monotonic() - down_since
            assert tries, "no NPC backed off while the brain was down"
            for npc_id, delays in tries.items():  # the first wait is 1 s (at least 0.8 s with jitter)
                assert delays == sorted(delays) and len(delays) <= 2 + down_s / 0.8, (npc_id, down_s, delays)
            assert not [e for e in kinds("decision", down_at)], "decisions while the brain was down"
            brain.start()
            back_at = len(game.events)
            assert game.wait_for(lambda e: e["event"] == "brain_status" and e["reachable"],
                                 timeout_s=60, since=back_at)
            # A restarted brain on a loaded machine takes its time (the world registered again, NPCs
            # spawned again, day plans begun): the wait gives up only when no call succeeds for long.
            def resumed() -> int:
                return len({e["npc"] for e in kinds("decision", back_at)})

            def answered() -> int:
                return sum(e["event"] in ("world_registered", "npc_spawned", "decision") for e in game.events[back_at:])

            assert game.wait_until(lambda: resumed() >= 5, timeout_s=60, progress=answered), (
                f"NPCs did not resume after the brain came back ({resumed()} decided, {answered()} answers):\n"
                + "\n".join(game.lines[-40:]))
            print(f"resumed {time.monotonic() - down_since:.1f} s after the kill")
            game.screenshot(ARTIFACTS / "godot-ville-later.png")
            later_time = next(e for e in reversed(game.events) if "game_time" in e)["game_time"]
            assert later_time > first_time
        finally:
            (ARTIFACTS / "godot-ville-console.log").write_text("\n".join(game.lines) + "\n")

    problems = godot_web.engine_problems(game.lines)
    assert not problems, "\n".join(problems[:20])
    print(f"whole-game test: {time.monotonic() - started:.1f}s")


# --------------------------------------------------------------------------------------------
# The addon in someone else's game: the guide's project, built as a developer would build it
# --------------------------------------------------------------------------------------------


def test_the_guide_shows_the_example_scripts_verbatim() -> None:
    """The guide's scripts are the example's, plus the game's own class_name: what the example
    scene runs is what the guide tells a developer to type."""
    files = godot_web.guide_files()
    assert set(files) == godot_web.GUIDE_SCRIPTS
    for res_path, source in files.items():
        name = res_path.removeprefix("res://").removesuffix(".gd")
        first, rest = source.split("\n", 1)
        assert first == f"class_name {name.capitalize()}", first
        example = godot_web.ADDON_DIR / "example" / f"example_{name}.gd"
        assert rest == example.read_text(encoding="utf-8"), f"{res_path} differs from {example.name}"


def test_every_addon_class_is_prefixed_and_the_host_project_has_its_own(tmp_path: Path) -> None:
    project = godot_web.make_host_project(tmp_path / "game")
    classes = godot_web.scan_script_classes(project)  # raises on a class_name declared twice
    names = {c.name for c in classes}
    assert {"Npc", "Player", "Town"} <= names
    addon = [c for c in classes if c.path.startswith("res://addons/")]
    assert addon and all(c.name.startswith("NpcBrain") for c in addon), [c.name for c in addon]
    assert not [p for p in (project / "addons" / "npc_brain").rglob("*.gd")
                if "class_name" in p.read_text() and "example" in p.parts], "example scripts declare no class"
    plugin = (project / "addons" / "npc_brain" / "plugin.cfg").read_text()
    assert 'script="plugin.gd"' in plugin and (project / "addons" / "npc_brain" / "plugin.gd").exists()
    for icon in ("agent", "world", "sector", "arena", "object", "persona", "brain"):
        assert (project / "addons" / "npc_brain" / "icons" / f"{icon}.svg").read_text().startswith("<svg")


@pytest.mark.godot
@pytest.mark.slow
def test_the_addon_guide_project_boots_and_its_npcs_act(brain_factory, fake_llm, tmp_path: Path) -> None:
    """A fresh game with its own `class_name Player`, `Town` and `Npc`, the addon copied in and
    enabled, the guide's scripts and scene: it parses and boots without an engine error, its
    world reaches the brain, its three NPCs walk where the brain sends them and talk, and the
    objects their actions used are released. Hosted apart from the brain (a static server on
    another origin), it calls the brain its `npc_brain/brain/url` setting names."""
    _needs_browser()
    brain = brain_factory()
    project = godot_web.make_host_project(tmp_path / "game", settings={"brain/url": f'"{brain.http_url}"'})
    # A designer drags the lawn's Area2D shape and the bench's Marker2D two tiles right (the
    # arena's `rect` and the object's `tile` in the file are now stale): the world follows them.
    scene = project / "town.tscn"
    text = scene.read_text()
    for node, old_at, new_at in [("LawnArea", "Vector2(160, 336)", "Vector2(224, 336)"),
                                 ("BenchSpot", "Vector2(144, 336)", "Vector2(208, 336)")]:
        assert f'[node name="{node}"' in text and old_at in text
        text = text.replace(old_at, new_at, 1)
    scene.write_text(text)
    web_dir = godot_web.build_web(tmp_path / "web", project)
    fake_llm.queue(*[{"json": {"choice": "talk", "reason": "wants to say hello", "new_activity": ""}}] * 6,
                   purpose="react")
    fake_llm.queue(*[{"json": {"utterance": "Good morning! Lovely day.", "end_conversation": False}}] * 8,
                   purpose="converse_turn")
    npcs = {"ada_park", "ben_stone", "cleo_reyes"}
    server = godot_web.serve(web_dir, port=0, quiet=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    page = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with godot_web.HeadlessGame(f"{page}/?time-scale=60&npc-brain-log=events") as game:
            try:
                assert game.wait_until(lambda: _walked_to_decided(game.events) >= npcs and len(
                    {e["speaker"] for e in game.events if e["event"] == "dialogue"}) >= 2 and any(
                    e["event"] == "object_state" and e.get("released") for e in game.events), timeout_s=150), (
                    "\n".join(game.lines[-40:]))
                game.screenshot(ARTIFACTS / "godot-addon-guide.png")
            finally:
                (ARTIFACTS / "godot-addon-guide-console.log").write_text("\n".join(game.lines) + "\n")
    finally:
        server.shutdown()
        server.server_close()
    events = game.events
    client = next(e for e in events if e["event"] == "brain_client")
    assert client["base_url"] == brain.http_url != page, "the URL setting wins over the page's origin"
    registered = next(e for e in events if e["event"] == "world_registered")
    assert registered["response"]["worldName"] == "Tiny Town" and registered["response"]["sectorCount"] == 4
    assert set(registered["npcs"]) == npcs == {e["npc"] for e in events if e["event"] == "npc_spawned"}
    tiles = _tiles_by_address(registered["world"])
    assert tiles["Tiny Town:Park:lawn"] == {(x, y) for x in range(4, 10) for y in range(9, 12)}
    assert tiles["Tiny Town:Park:lawn:bench"] == {(6, 10), (7, 10)}
    # Ben and Cleo's room is the floor painted on the Ground layer inside its rect (not its walls).
    assert tiles["Tiny Town:Ben and Cleo's home:room"] == {(x, y) for x in range(11, 17) for y in range(8, 11)}
    assert not [e for e in events if e["event"] in ("brain_error", "unreachable")], events
    states = [e for e in events if e["event"] == "object_state"]
    held = {e["address"] for e in states if e["state"]}
    released = {e["address"] for e in states if e.get("released")}
    assert held and released and released <= held, states
    problems = godot_web.engine_problems(game.lines)
    assert not problems, "\n".join(problems[:20])


# --------------------------------------------------------------------------------------------
# The game's side of a real-time brain: the HUD's three states, askAgainAt, thinking. A stand-in
# brain answers here (real HTTP on loopback, the real engine); the real brain is tested elsewhere.
# --------------------------------------------------------------------------------------------

Answer = Callable[[str, dict], tuple[float, dict]]
# HTTP statuses of Connect error codes (a response {"code": ..., "message": ...} is sent with its status).
CONNECT_STATUS = {"unavailable": 503, "failed_precondition": 400, "already_exists": 409,
                  "invalid_argument": 400, "not_found": 404, "unimplemented": 404}


class _StandInBrain:
    """A loopback HTTP/1.1 server that serves the web build (same origin: no CORS) and answers
    Connect unary JSON calls with `answer(method, request) -> (delay_s, response)` (a response
    with "code" and "message" is a Connect error with its HTTP status); `calls` holds
    (method, request) in arrival order. RegisterWorld, SpawnNpc and other calls answer at once
    unless `answer` returns None for them. A DecideBatch is answered Decide by Decide (each in
    `calls` as a Decide); with `batches=False`, like any other method (an older brain's 404)."""

    def __init__(self, web_dir: Path, answer: Answer, *, batches: bool = True) -> None:
        self.calls: list[tuple[str, dict]] = []
        brain = self

        class Handler(godot_web._QuietHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                method = self.path.rsplit("/", 1)[-1]
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if method == "DecideBatch" and batches:  # each Decide answered as if sent alone, as the brain does
                    delay_s, response = brain.batch(request["requests"])
                else:
                    delay_s, response = brain.one(method, request)
                time.sleep(delay_s)
                status = CONNECT_STATUS.get(response.get("code", ""), 200) if "message" in response else 200
                body = json.dumps(response).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the game gave up waiting and closed the connection

        self.answer = answer
        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(web_dir)))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def one(self, method: str, request: dict) -> tuple[float, dict]:
        self.calls.append((method, request))
        return self.answer(method, request) or (0.0, _default_answer(method, request))

    def batch(self, requests: list[dict]) -> tuple[float, dict]:
        answers = [self.one("Decide", r) for r in requests]
        return max((d for d, _ in answers), default=0.0), {"results": [
            {"npcId": r["npcId"], **(a if "message" in a else {"response": a})}
            for r, (_, a) in zip(requests, answers, strict=True)]}

    def __enter__(self) -> _StandInBrain:
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _default_answer(method: str, request: dict) -> dict:
    """RegisterWorld's counts; Decide: stay where you are for ten hours (no askAgainAt, no
    thinking: the fields are optional); anything else: an empty message."""
    if method == "RegisterWorld":
        sectors = request["world"]["sectors"]
        arenas = [a for s in sectors for a in s["arenas"]]
        return {"worldName": request["world"]["name"], "sectorCount": len(sectors), "arenaCount": len(arenas),
                "objectCount": sum(len(a.get("objects", [])) for a in arenas)}
    if method == "Decide":
        return {"traceId": "stay", "action": {
            "description": "staying put", "address": request["address"], "durationMinutes": 600,
            "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}
    return {}


def _game_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _rfc3339(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _hud(events: list[dict]) -> list[dict]:
    return [e for e in events if e["event"] == "hud_status"]


@pytest.mark.godot
def test_a_game_leaves_nothing_running_in_its_thread_even_when_its_page_fails_to_open() -> None:
    """After a game, whether its page opened or not, the thread can run an event loop again: a
    Playwright left started keeps its own loop running in the thread, and every later test of the
    worker that calls asyncio.run fails (a browser kept for the process did that to 160 tests)."""
    _needs_browser()
    with godot_web.HeadlessGame("about:blank") as game:
        assert game.page.url == "about:blank"
    assert asyncio.run(asyncio.sleep(0, result="ran")) == "ran"
    with pytest.raises(Exception, match="ERR_CONNECTION_REFUSED"):
        with godot_web.HeadlessGame(f"http://127.0.0.1:{unclaimed_port()}/"):
            pass
    assert asyncio.run(asyncio.sleep(0, result="ran")) == "ran"


@pytest.mark.godot
@pytest.mark.slow
def test_hud_says_offline_when_no_brain_listens(tmp_path: Path) -> None:
    _needs_browser()
    web_dir = godot_web.build_web(tmp_path / "web")
    server = godot_web.serve(web_dir, port=0, quiet=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/?brain-url=http://127.0.0.1:{unclaimed_port()}"
        with godot_web.HeadlessGame(url) as game:
            offline = game.wait_for(lambda e: e["event"] == "hud_status", timeout_s=60)
    finally:
        server.shutdown()
        server.server_close()
    assert offline, "\n".join(game.lines[-30:])
    assert offline["state"] == "FAILING" and offline["text"].startswith("brain OFFLINE (unavailable)"), offline
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


@pytest.mark.godot
@pytest.mark.slow
def test_hud_says_slow_not_offline_when_answers_time_out(tmp_path: Path) -> None:
    """Decide answers after 30 s, the game waits 1 s (`?brain-timeout-s=1`): the brain is
    reachable but slow, which is not offline. (An answer 2 s past the timeout could beat it on a
    starved page, whose clock and deadline crawl: answered, the ten-hour actions ask nothing more
    and no timeout comes.)"""
    _needs_browser()
    web_dir = godot_web.build_web(tmp_path / "web")

    def slow_decide(method: str, request: dict) -> tuple[float, dict] | None:
        return (30.0, _default_answer(method, request)) if method == "Decide" else None

    with _StandInBrain(web_dir, slow_decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&brain-timeout-s=1") as game:
        # The Decides' batch times out (or, on a loaded machine, a SpawnNpc queued behind it): slow.
        # A loaded machine may first make RegisterWorld slow ("took 5.0 s"): the HUD's first slow
        # word then names it, so the timeouts are read from the game's errors.
        slow = game.wait_for(lambda e: e["event"] == "hud_status" and e["state"] == "SLOW", timeout_s=60)
        assert slow, _hud(game.events)
        assert game.wait_for(lambda e: e["event"] == "brain_error" and e["code"] == "deadline_exceeded",
                             timeout_s=60), game.lines[-30:]
        game.pump(5)  # more timeouts: still slow, never offline
    hud = _hud(game.events)
    assert _reached(hud[0]), hud
    assert re.match(r"brain slow \(((DecideBatch|SpawnNpc): no answer in 1\.0 s|RegisterWorld took \d+\.\d s)\)",
                    slow["text"]), slow
    assert not [e for e in hud if e["state"] == "FAILING" or "OFFLINE" in e["text"]], hud
    timeouts = [e for e in game.events if e["event"] == "brain_error"]
    assert timeouts and {e["code"] for e in timeouts} == {"deadline_exceeded"}, timeouts[:5]
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


@pytest.mark.godot
@pytest.mark.slow
def test_npc_shows_thinking_and_asks_again_at_ask_again_at(tmp_path: Path) -> None:
    """Isabella's first answer is provisional (her home, for an hour) with `thinking` and
    askAgainAt ten and a half game minutes on; she walks there showing that she is thinking, asks
    again at that game time to the game second (not at the hour's end, nor at the next game
    minute), and takes the plan's action without the mark."""
    _needs_browser()
    web_dir = godot_web.build_web(tmp_path / "web")
    npc, cafe = "isabella_rodriguez", "the Ville:Hobbs Cafe:cafe"

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide" or request["npcId"] != npc:
            return None
        now = _game_time(request["gameTime"])
        if not [r for m, r in brain.calls[:-1] if m == "Decide" and r["npcId"] == npc]:
            return 0.0, {"traceId": "provisional", "thinking": True,
                         "askAgainAt": _rfc3339(now + timedelta(minutes=10, seconds=30)), "action": {
                             "description": "Isabella Rodriguez is getting ready for the day",
                             "address": request["address"], "durationMinutes": 60,
                             "startTime": request["gameTime"], "source": "ACTION_SOURCE_PROVISIONAL"}}
        return 0.0, {"traceId": "plan", "askAgainAt": _rfc3339(now + timedelta(minutes=60)), "action": {
            "description": "Isabella Rodriguez is opening Hobbs Cafe", "address": cafe,
            "durationMinutes": 60, "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    def decisions() -> list[dict]:
        return [e for e in game.events if e["event"] == "decision" and e["npc"] == npc]

    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60") as game:
        assert game.wait_until(lambda: len(decisions()) >= 2, timeout_s=90), "\n".join(game.lines[-30:])
    first, second = decisions()[:2]
    asked = [_game_time(r["gameTime"]) for m, r in brain.calls if m == "Decide" and r["npcId"] == npc]

    assert first["source"] == "ACTION_SOURCE_PROVISIONAL" and first["thinking"], first
    assert first["shown"].endswith("(thinking...)"), first
    ask_at = _game_time(first["ask_again_at"])
    assert ask_at == asked[0] + timedelta(minutes=10, seconds=30), (first, asked)
    # Asked again at askAgainAt (a third of a real second is 20 game seconds at 60x), long before
    # the hour was up, and before the minute after it.
    assert ask_at <= asked[1] <= ask_at + timedelta(seconds=20), (ask_at, asked)
    assert second["source"] == "ACTION_SOURCE_PLAN" and not second["thinking"], second
    assert "thinking" not in second["shown"] and second["address"] == cafe, second
    # Meanwhile she walked to the provisional action's address.
    arrived = [e for e in game.events[:game.events.index(second)] if e["event"] == "arrived" and e["npc"] == npc]
    assert [e for e in arrived if e["address"] == first["address"]], arrived
    hud = _hud(game.events)
    assert hud and _reached(hud[0]), hud
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


# --------------------------------------------------------------------------------------------
# The main job: `npc-lab play` on its embedded defaults, exactly as `tools/run.sh` leaves it.
# --------------------------------------------------------------------------------------------

PLAY_URL_LINE = re.compile(r"npc-lab: open (http://\S+) to watch the town")
DOCS_SCREENSHOT = ROOT / "docs" / "images" / "town-embedded.png"


class _Play:
    """`.venv/bin/npc-lab play` in a subprocess with no NPC_BRAIN_* setting (so no LLM endpoint:
    the embedded SmolLM2 starts), a fresh data dir and free ports; `url` is the page it prints."""

    def __init__(self, data_dir: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
        command = [str(Path(sys.executable).parent / "npc-lab"), "play", "--data-dir", str(data_dir),
                   "--grpc-port", "0", "--http-port", "0"]
        self.proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        self.url = ""
        self._ready = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout
        for line in self.proc.stdout:
            self.output.append(line.rstrip())
            if not self._ready.is_set() and (match := PLAY_URL_LINE.search(line)):
                self.url = match.group(1)
                self._ready.set()
        self._ready.set()

    def wait_ready(self, timeout_s: float) -> str:
        self._ready.wait(timeout_s)
        assert self.url, "npc-lab play printed no URL:\n" + "\n".join(self.output[-40:])
        return self.url

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.mark.godot
@pytest.mark.slow
def test_play_on_embedded_defaults_gets_the_town_walking(tmp_path: Path) -> None:
    """What a user sees after `tools/run.sh`: `npc-lab play` with no endpoint configured (the
    embedded SmolLM2), its printed page watched at the default 60x until the town walks on the
    model's own plans (at most 3 minutes): at least 20 of the 25 NPCs have set out and a majority
    act on a plan the model wrote, not only on provisional actions. The first NPC sets out before
    any acts on the model's plan (on a provisional action: when is in the printed report), and
    the HUD never says OFFLINE while the model plans the town (Decide answers at once; the model
    thinks in the background)."""
    _needs_browser()
    watch_s, enough_walkers, enough_planned = 180.0, 20, 13
    picture = os.environ.get("NPC_BRAIN_SCREENSHOTS") == "1"  # the README's picture is 3 minutes in
    play = _Play(tmp_path / "data")
    report: dict = {}
    try:
        url = play.wait_ready(timeout_s=300)
        assert "time-scale=60" in url, url
        stamps: list[float] = []  # seconds since the page started opening, per event
        opened = time.monotonic()
        with godot_web.HeadlessGame(url) as game:
            try:
                def enough() -> bool:  # the report's times: when each event arrived
                    stamps.extend([time.monotonic() - opened] * (len(game.events) - len(stamps)))
                    so_far = _play_report(game.events[:len(stamps)], stamps)
                    return (not picture and len(so_far["walked"]) >= enough_walkers
                            and len(so_far["planned"]) >= enough_planned)

                game.wait_until(enough, timeout_s=watch_s)  # what fell short, the report below says
                game.screenshot(ARTIFACTS / "godot-play-embedded.png")
            finally:
                (ARTIFACTS / "godot-play-embedded-console.log").write_text("\n".join(game.lines) + "\n")
        events = game.events[:len(stamps)]
        report = _play_report(events, stamps)
        (ARTIFACTS / "godot-play-embedded-report.json").write_text(json.dumps(report, indent=1) + "\n")
    finally:
        play.stop()
        (ARTIFACTS / "godot-play-embedded-brain.log").write_text("\n".join(play.output) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "never_walked"}, indent=1))
    summary = json.dumps(report, indent=1)[:6000]

    assert report["npcs"] == 25, summary
    # The first NPC sets out on a provisional action, before any NPC acts on a plan the model wrote.
    assert report["first_walk_s"] is not None and report["first_walk_s"] <= min(report["planned"].values(), default=report["first_walk_s"]), summary
    assert len(report["walked"]) >= enough_walkers, summary
    assert len(report["planned"]) >= enough_planned, summary
    assert "FAILING" not in report["hud_states"] and not report["hud_offline"], summary
    assert not godot_web.engine_problems(game.lines), "\n".join(godot_web.engine_problems(game.lines)[:20])
    if picture:
        shutil.copyfile(ARTIFACTS / "godot-play-embedded.png", DOCS_SCREENSHOT)


def _play_report(events: list[dict], stamps: list[float]) -> dict:
    """What the watched session showed: when each NPC first set out and first acted on its plan
    (seconds since the page opened), the HUD's states, Decide latencies, and for NPCs that never
    walked, their decisions."""
    first_walk: dict[str, float] = {}
    planned: dict[str, float] = {}
    went_out: dict[str, str] = {}  # first arena other than the one it spawned in -> "<address> at <s>"
    spawned_in: dict[str, str] = {}
    decisions: dict[str, list[dict]] = {}
    for event, at in zip(events, stamps, strict=True):
        if event["event"] == "npc_spawned":
            spawned_in[event["npc"]] = _arena_of(event["address"])
        elif event["event"] == "walking":
            first_walk.setdefault(event["npc"], round(at, 1))
            if _arena_of(event["address"]) != spawned_in.get(event["npc"]):
                went_out.setdefault(event["npc"], f"{event['address']} at {at:.1f} s")
        elif event["event"] == "decision":
            if event["source"] == "ACTION_SOURCE_PLAN":
                planned.setdefault(event["npc"], round(at, 1))
            decisions.setdefault(event["npc"], []).append(
                {"at_s": round(at, 1), **{k: event[k] for k in ("game_time", "source", "address", "description",
                                                                 "thinking", "latency_ms")}})
    registered = next((e for e in events if e["event"] == "world_registered"), {"npcs": []})
    hud = [e for e in events if e["event"] == "hud_status"]
    latencies = sorted(d["latency_ms"] for ds in decisions.values() for d in ds)
    sources: dict[str, int] = {}
    for ds in decisions.values():
        for d in ds:
            sources[d["source"]] = sources.get(d["source"], 0) + 1
    return {
        "npcs": len(registered["npcs"]),
        "world_registered_s": next((round(at, 1) for e, at in zip(events, stamps, strict=True)
                                    if e["event"] == "world_registered"), None),
        "first_walk_s": min(first_walk.values(), default=None),
        "walked": dict(sorted(first_walk.items(), key=lambda item: item[1])),
        "went_out": went_out,
        "planned": dict(sorted(planned.items(), key=lambda item: item[1])),
        "hud_states": sorted({e["state"] for e in hud}),
        "hud_offline": [e["text"] for e in hud if "OFFLINE" in e["text"]],
        "brain_errors": [e for e in events if e["event"] == "brain_error"][:10],
        "decisions": len(latencies),
        "decide_latency_ms": {"p50": latencies[len(latencies) // 2], "max": latencies[-1]} if latencies else {},
        "sources": sources,
        "last_game_time": next((e["game_time"] for e in reversed(events) if "game_time" in e), None),
        "never_walked": {npc: decisions.get(npc, [])[:6] for npc in registered["npcs"] if npc not in first_walk},
    }


def _arena_of(address: str) -> str:
    """`world:sector:arena` of an arena's or an object's address."""
    return ":".join(address.split(":")[:3])


# --------------------------------------------------------------------------------------------
# Errors a developer sees (the addon in the guide's game, and in the Ville)
# --------------------------------------------------------------------------------------------


def _error(code: str, message: str) -> tuple[float, dict]:
    return 0.0, {"code": code, "message": message}


@pytest.mark.godot
@pytest.mark.slow
def test_addon_retries_what_passes_recovers_what_was_lost_and_reports_what_must_be_fixed(tmp_path: Path) -> None:
    """The guide's game against a stand-in brain: RegisterWorld is unavailable once (retried),
    Ada's first Decide finds the world gone (failed_precondition: the world is registered again
    and Ada spawned again), Cleo's persona clashes with the stored one (already_exists: one
    push_error naming the fix, her agent stops asking). At the default log level only errors
    reach the console."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    web_dir = godot_web.build_web(tmp_path / "web", project)
    state = {"register": 0, "ada_decides": 0}

    def answer(method: str, request: dict) -> tuple[float, dict] | None:
        if method == "RegisterWorld":
            state["register"] += 1
            return _error("unavailable", "starting up") if state["register"] == 1 else None
        if method == "SpawnNpc" and request["npcId"] == "cleo_reyes":
            return _error("already_exists", "NPC 'cleo_reyes' already exists with another persona or world")
        if method == "Decide" and request["npcId"] == "ada_park":
            state["ada_decides"] += 1
            if state["ada_decides"] == 1:
                return _error("failed_precondition", "world 'Tiny Town' is not registered: call RegisterWorld first")
        return None

    def calls(method: str, npc: str | None = None) -> list[dict]:
        return [r for m, r in brain.calls if m == method and (npc is None or r.get("npcId") == npc)]

    with _StandInBrain(web_dir, answer) as brain, godot_web.HeadlessGame(f"{brain.url}/?time-scale=60") as game:
        assert game.wait_until(lambda: len(calls("Decide", "ada_park")) >= 2 and calls("Decide", "ben_stone"),
                               timeout_s=60), (brain.calls[-10:], game.lines[-30:])
        game.pump(4)  # Cleo's agent would have asked again by now (1 s backoff) if it retried
    assert len(calls("RegisterWorld")) == 3, [m for m, _ in brain.calls]  # unavailable, ok, after the loss
    assert len(calls("SpawnNpc", "ada_park")) == 2, "Ada is spawned again after the world was lost"
    assert len(calls("SpawnNpc", "cleo_reyes")) == 1 and not calls("Decide", "cleo_reyes"), "a refused NPC stops"
    problems = godot_web.engine_problems(game.lines)
    refused = [line for line in problems if "cleo_reyes" in line and "already_exists" in line]
    assert len(refused) == 1 and "new npc_id" in refused[0], problems
    assert [line for line in problems if line not in refused and "at: " not in line] == [], problems
    events = godot_web.event_lines(game.lines)
    assert {e["event"] for e in events} <= {"brain_error", "brain_status", "unreachable"}, {e["event"] for e in events}
    assert {e["code"] for e in events if e["event"] == "brain_error"} == {
        "unavailable", "failed_precondition", "already_exists"}


@pytest.mark.godot
@pytest.mark.slow
def test_a_refused_world_turns_the_hud_red_once_and_is_not_retried(brain_factory, tmp_path: Path) -> None:
    """The Ville with a duplicated sector name (Ctrl+D on a house): the real brain refuses
    RegisterWorld; the game says why once (push_error with the brain's message and its own
    check of the scene), the HUD turns red, and it does not retry in a loop."""
    _needs_browser()
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns(".godot"))
    scene = project / "town" / "the_ville.tscn"
    text = scene.read_text()
    assert 'sector_name = "Hobbs Cafe"' in text
    scene.write_text(text.replace('sector_name = "Hobbs Cafe"', 'sector_name = "The Willows Market and Pharmacy"', 1))
    brain = brain_factory(web_root=godot_web.build_web(tmp_path / "web", project))
    with godot_web.HeadlessGame(f"{brain.http_url}/") as game:
        refused = game.wait_for(lambda e: e["event"] == "hud_status" and e["state"] == "REFUSED", timeout_s=60)
        assert refused, "\n".join(game.lines[-30:])
        game.pump(8)  # more than two retry delays (3 s)
    assert refused["text"].startswith("brain REFUSED RegisterWorld (invalid_argument)"), refused
    errors = [e for e in game.events if e["event"] == "brain_error"]
    assert len(errors) == 1 and errors[0]["method"] == "RegisterWorld", errors
    pushed = [line for line in godot_web.engine_problems(game.lines) if "refused world" in line]
    assert len(pushed) == 1 and 'Two sectors are named "The Willows Market and Pharmacy"' in pushed[0], (
        godot_web.engine_problems(game.lines))
    assert not [e for e in game.events if e["event"] in ("world_registered", "npc_spawned")]


@pytest.mark.godot
@pytest.mark.slow
def test_the_debug_overlay_follows_the_window_and_its_keys_are_input_actions(tmp_path: Path) -> None:
    """The addon's overlay in the Ville, in a 1280x720 window the game does not stretch (the
    project is 960x640): the bar spans the bottom edge, the inspector opens on the clicked NPC
    against the right edge; Space (the npc_brain_pause action) pauses, Escape (npc_brain_close)
    closes."""
    _needs_browser()
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns(".godot"))
    settings = project / "project.godot"
    settings.write_text(settings.read_text().replace('window/stretch/mode="canvas_items"', 'window/stretch/mode="disabled"'))
    web_dir = godot_web.build_web(tmp_path / "web", project)
    size = {"width": 1280, "height": 720}
    with _StandInBrain(web_dir, lambda method, request: None) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60", viewport=size) as game:
        assert game.wait_for(lambda e: e["event"] == "decision", timeout_s=60), "\n".join(game.lines[-30:])
        game.press("Space")
        paused = game.wait_for(lambda e: e["event"] == "clock" and e["paused"], timeout_s=10)
        assert paused, "\n".join(game.lines[-30:])
        npc, (x, y) = sorted(paused["npcs_on_screen"].items())[0]
        game.click(x, y)
        opened = game.wait_for(lambda e: e["event"] == "inspector_opened", timeout_s=20)
        assert opened and opened["npc"] == npc, opened
        game.press("Escape")
        game.click(x, y)  # closed: the same click opens it again
        again = game.wait_for(lambda e: e["event"] == "inspector_opened", timeout_s=20,
                              since=game.events.index(opened) + 1)
    assert paused["bar"] == [0, 680, 1280, 40], paused["bar"]
    controls = opened["controls"]
    assert all(1280 - 380 - 6 <= cx <= 1280 and cy < 680 for cx, cy in controls.values()), controls
    assert again and again["npc"] == npc
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


_BOT_3D = '''extends Node3D
## A 3D NPC: glides to where its agent is sent, then says it is there.

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	_agent.move_requested_3d.connect(_on_move_requested_3d)


func _on_move_requested_3d(_address: String, target: Vector3) -> void:
	var tween := create_tween()
	tween.tween_property(self, "global_position", target, 0.5)
	tween.finished.connect(_agent.report_arrived)
'''

_SCENE_3D = '''[gd_scene load_steps=8 format=3]

[ext_resource type="Script" path="res://bot.gd" id="1_bot"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_agent.gd" id="2_agent"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_persona.gd" id="3_persona"]
[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_world.gd" id="4_world"]
[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_sector.gd" id="5_sector"]
[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_arena.gd" id="6_arena"]
[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_object.gd" id="7_object"]

[sub_resource type="Resource" id="Persona_bot"]
script = ExtResource("3_persona")
display_name = "Robo Clerk"
home = "Home:room"

[sub_resource type="Resource" id="Persona_stocker"]
script = ExtResource("3_persona")
display_name = "Robo Stocker"
home = "Shop:shop"

[node name="Game3D" type="Node3D"]

[node name="World" type="Node2D" parent="."]
script = ExtResource("4_world")
world_name = "Town3D"
grid_size = Vector2i(10, 6)
tile_size_3d = 2.0
style = 2

[node name="Home" type="Node" parent="World"]
script = ExtResource("5_sector")
sector_name = "Home"

[node name="Room" type="Node" parent="World/Home"]
script = ExtResource("6_arena")
arena_name = "room"
rect = Rect2i(1, 1, 3, 3)
walled = false

[node name="Shop" type="Node" parent="World"]
script = ExtResource("5_sector")
sector_name = "Shop"

[node name="Floor" type="Node" parent="World/Shop"]
script = ExtResource("6_arena")
arena_name = "shop"
rect = Rect2i(6, 1, 3, 3)
walled = false

[node name="Counter" type="Node" parent="World/Shop/Floor"]
script = ExtResource("7_object")
object_name = "counter"
tile = Vector2i(7, 2)

[node name="Bot" type="Node3D" parent="."]
position = Vector3(5, 1, 5)
script = ExtResource("1_bot")

[node name="NpcBrainAgent" type="Node" parent="Bot"]
script = ExtResource("2_agent")
npc_id = "robo_clerk"
persona = SubResource("Persona_bot")

[node name="Stocker" type="Node3D" parent="."]
position = Vector3(17, 1, 5)
script = ExtResource("1_bot")

[node name="NpcBrainAgent" type="Node" parent="Stocker"]
script = ExtResource("2_agent")
npc_id = "robo_stocker"
persona = SubResource("Persona_stocker")

[node name="Camera" type="Camera3D" parent="."]
position = Vector3(5, 1, 9)
fov = 30.0
'''


@pytest.mark.godot
@pytest.mark.slow
def test_an_agent_drives_a_3d_body_on_the_worlds_tiles(tmp_path: Path) -> None:
    """A Node3D body: the agent reads its tile from x and z (2 m tiles), sends it to the tile of
    the brain's address with `move_requested_3d` at its own height, and hears it arrive there.
    A narrow Camera3D looks at where the clerk starts: its first Decide says it is in view, the
    stocker's (in the shop, beside the picture) out of view; the clerk, gone to the shop's
    counter, is out of view a moment later."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "bot.gd").write_text(_BOT_3D)
    (project / "town.tscn").write_text(_SCENE_3D)
    web_dir = godot_web.build_web(tmp_path / "web", project)

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide":
            return None
        if request["npcId"] == "robo_stocker":
            return 0.0, {"traceId": "stock", "action": {
                "description": "Robo Stocker is stocking shelves", "address": request["address"],
                "durationMinutes": 600, "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}
        return 0.0, {"traceId": "shop", "action": {
            "description": "Robo Clerk is minding the counter", "address": "Town3D:Shop:shop:counter",
            "durationMinutes": 600, "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&npc-brain-log=events") as game:
        arrived = game.wait_for(lambda e: e["event"] == "arrived" and e["npc"] == "robo_clerk", timeout_s=60)
        assert arrived, "\n".join(game.lines[-30:])
        left = game.wait_for(lambda e: e["event"] == "attention" and e["npc"] == "robo_clerk"
                             and not e["in_view"], timeout_s=10)
        assert left, "\n".join(game.lines[-30:])
    spawn = next(r for m, r in brain.calls if m == "SpawnNpc" and r["npcId"] == "robo_clerk")
    first = {r["npcId"]: r["attention"] for m, r in reversed(brain.calls) if m == "Decide"}
    assert first == {"robo_clerk": "ATTENTION_IN_VIEW", "robo_stocker": "ATTENTION_OUT_OF_VIEW"}, first
    assert spawn["tile"] == {"x": 2, "y": 2} and spawn["address"] == "Town3D:Home:room", spawn
    assert arrived["npc"] == "robo_clerk" and arrived["address"] == "Town3D:Shop:shop:counter", arrived
    assert arrived["tile"] == [7, 2] and arrived["at"] == "Town3D:Shop:shop", arrived
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


# --------------------------------------------------------------------------------------------
# Attention: each Decide tells the brain whether the player can see the NPC (its body on the
# screen), so the brain can think coarser about the NPCs nobody watches.
# --------------------------------------------------------------------------------------------

_BOT_2D = '''extends Node2D
## A 2D NPC: glides where its agent is sent (in `walk_s`), then says it is there. A `jiggle` bot
## stays put and, after its first decision, hops into the screen and out again four times (half a
## second each), then into it for good: a camera shaking at an edge.

@export var jiggle: bool = false
@export var in_view_spot: Vector2 = Vector2(400, 200)
@export var walk_s: float = 2.0

@onready var _agent: NpcBrainAgent = $NpcBrainAgent


func _ready() -> void:
	_agent.move_requested.connect(_on_move_requested)
	if jiggle:
		_agent.decided.connect(_on_first_decision, CONNECT_ONE_SHOT)


func _on_move_requested(_address: String, target: Vector2) -> void:
	if jiggle:
		_agent.report_arrived.call_deferred()
		return
	var tween := create_tween()
	tween.tween_property(self, "global_position", target, walk_s)
	tween.finished.connect(_agent.report_arrived)


func _on_first_decision(_decision: NpcBrainDecision) -> void:
	var away := position
	var tween := create_tween()
	for i in 4:
		tween.tween_interval(0.5)
		tween.tween_property(self, "position", in_view_spot, 0.0)
		tween.tween_interval(0.5)
		tween.tween_property(self, "position", away, 0.0)
	tween.tween_interval(0.5)
	tween.tween_property(self, "position", in_view_spot, 0.0)
	tween.finished.connect(func() -> void: print("NPCBRAIN {\\"event\\": \\"jiggled\\"}"))
'''

_PERSONA_2D = '''[sub_resource type="Resource" id="Persona_{id}"]
script = ExtResource("3_persona")
display_name = "{name}"
home = "{home}"
'''

_BODY_2D = '''[node name="{node}" type="Node2D" parent="."]
position = Vector2({x}, {y})
script = ExtResource("1_bot")
{extra}
[node name="NpcBrainAgent" type="Node" parent="{node}"]
script = ExtResource("2_agent")
npc_id = "{id}"
persona = SubResource("Persona_{id}")
{agent_extra}
'''

# (node, npc id, name, home, x, y, body's extra lines, agent's extra lines). The window is
# 960x640 (no Camera2D: the canvas from the origin): x < 500 is on screen, x > 1500 off it.
# The jiggler's half seconds off screen are glances away at any out-of-view delay above them: its
# delay is a minute, not the default 2 s. A notifier sees the screen only when it is drawn, once a
# second here (GODOT_WEB_DRAW_HZ), and on a loaded page the draws could all land in its half
# seconds away for over 2 s, which settled it out of view (CI, stop 67).
# The traveler walks home in 8 s, not 2: the screen is drawn once a second (GODOT_WEB_DRAW_HZ), so
# the draw that first shows him comes up to a second after he steps on screen, 0.9 s into a 2 s
# walk; a loaded page's long frames could put it past his arrival (arrived before in view).
_BOTS_2D = [
    ("Near", "near", "Nora Near", "Home:room", 80, 80, "", ""),
    ("Traveler", "traveler", "Tom Traveler", "Far:yard", 1712, 80, "walk_s = 8.0\n", ""),
    ("Jiggler", "jiggler", "Jill Jiggler", "Far:yard", 1776, 112, "jiggle = true\n",
     "out_of_view_after_s = 60.0\n"),
    ("Companion", "companion", "Cora Companion", "Far:yard", 1840, 80, "", "attention_mode = 2\n"),
]


def _scene_2d(bots: list[tuple[str, str, str, str, int, int, str, str]] = _BOTS_2D) -> str:
    parts = ['[gd_scene load_steps=9 format=3]\n',
             '[ext_resource type="Script" path="res://bot.gd" id="1_bot"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_agent.gd" id="2_agent"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_persona.gd" id="3_persona"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_world.gd" id="4_world"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_sector.gd" id="5_sector"]',
             '[ext_resource type="Script" path="res://addons/npc_brain/world/npc_brain_arena.gd" id="6_arena"]\n']
    parts += [_PERSONA_2D.format(id=bot[1], name=bot[2], home=bot[3]) for bot in bots]
    parts.append('''[node name="Game2D" type="Node2D"]

[node name="World" type="Node2D" parent="."]
script = ExtResource("4_world")
world_name = "Town2D"
tile_size = 32
grid_size = Vector2i(60, 8)
style = 1

[node name="Home" type="Node" parent="World"]
script = ExtResource("5_sector")
sector_name = "Home"

[node name="Room" type="Node" parent="World/Home"]
script = ExtResource("6_arena")
arena_name = "room"
rect = Rect2i(1, 1, 4, 3)
walled = false

[node name="Far" type="Node" parent="World"]
script = ExtResource("5_sector")
sector_name = "Far"

[node name="Yard" type="Node" parent="World/Far"]
script = ExtResource("6_arena")
arena_name = "yard"
rect = Rect2i(52, 1, 6, 3)
walled = false
''')
    parts += [_BODY_2D.format(node=b[0], id=b[1], x=b[4], y=b[5], extra=b[6], agent_extra=b[7]) for b in bots]
    return "\n".join(parts)


@pytest.mark.godot
@pytest.mark.slow
def test_a_large_town_spreads_its_first_calls_over_a_second_per_hundred_agents(tmp_path: Path) -> None:
    """300 numbered agents load together with the default start_spread_s (1 s): once the world is
    registered each waits its own share of 3 s, a second per hundred agents, and their first
    calls (each NPC's SpawnNpc) reach the brain in about that order."""
    _needs_browser()
    bots = [(f"Bot{i}", f"bot_{i:03d}", f"Bot {i}", "Far:yard", 1680 + 32 * (i % 6), 48 + 32 * (i // 6 % 3), "", "")
            for i in range(300)]
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "bot.gd").write_text(_BOT_2D)
    (project / "town.tscn").write_text(_scene_2d(bots))
    web_dir = godot_web.build_web(tmp_path / "web", project)
    first_call: dict[str, float] = {}

    def answer(method: str, request: dict) -> tuple[float, dict] | None:
        if "npcId" in request:
            first_call.setdefault(request["npcId"], len(first_call))  # the order they called in
        return None

    with _StandInBrain(web_dir, answer) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&npc-brain-log=verbose") as game:
        assert game.wait_until(lambda: len(first_call) == len(bots), timeout_s=BOOT_LIMIT_S,
                               progress=lambda: len(first_call)), (
            f"{len(first_call)} of {len(bots)} agents called the brain", game.lines[-30:])
    turns = {e["npc"]: e for e in game.events if e["event"] == "own_turn"}  # the last: once the world is registered
    assert len(turns) == len(bots) and {e["spread_s"] for e in turns.values()} == {3.0}, list(turns.values())[:3]
    # Each agent's share of the 3 s: numbered ids spread evenly over all ten tenths of it, none outside.
    tenth = {npc: int(e["wait_s"] / 0.3) for npc, e in turns.items()}
    counts = Counter(tenth.values())
    assert set(counts) == set(range(10)) and min(counts.values()) >= 10, counts
    # They called in the order of their waits, counted from one instant (the world's registration):
    # the first tenth all before the last, and by thirds in order. Not one by one: timers that fall
    # in one frame fire in the order they were made, and a loaded machine's frames are long.
    first, last = ([first_call[npc] for npc, t in tenth.items() if t == k] for k in (0, 9))
    thirds = [[first_call[npc] for npc, t in tenth.items() if t * 3 // 10 == k] for k in range(3)]
    means = [sum(ranks) / len(ranks) for ranks in thirds]
    assert max(first) < min(last) and means == sorted(means), (sorted(first), sorted(last), means)
    assert [m for m, _ in brain.calls].count("SpawnNpc") == len(bots)
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


@pytest.mark.godot
@pytest.mark.slow
def test_decide_says_whether_the_player_sees_the_npc_and_an_npc_coming_into_view_asks_again(
        tmp_path: Path) -> None:
    """Four 2D NPCs in a 960x640 window with ten-hour actions: Nora stands on screen, her Decide
    says ATTENTION_IN_VIEW; Tom, Jill and Cora start far to the right, off screen: Tom's and
    Jill's first Decide say ATTENTION_OUT_OF_VIEW, Cora's ATTENTION_IN_VIEW (her agent is set to
    always in view). Tom's first action sends him home, on screen: as he walks in, he asks again
    at once (not at the action's end ten game hours on, not when he arrives), in view. Jill hops
    in and out of the screen four times, half a second each: one early Decide, not four."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "bot.gd").write_text(_BOT_2D)
    (project / "town.tscn").write_text(_scene_2d())
    web_dir = godot_web.build_web(tmp_path / "web", project)

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide":
            return None
        address = "Town2D:Home:room" if request["npcId"] == "traveler" else request["address"]
        return 0.0, {"traceId": f"{request['npcId']}-{len(brain.calls)}", "action": {
            "description": "going about the day", "address": address, "durationMinutes": 600,
            "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    def decides(npc: str) -> list[dict]:
        return [r for m, r in brain.calls if m == "Decide" and r["npcId"] == npc]

    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&npc-brain-log=events",
                                   viewport={"width": 960, "height": 640}) as game:
        jiggled = game.wait_for(lambda e: e["event"] == "jiggled", timeout_s=90)
        assert jiggled, "\n".join(game.lines[-30:])
        arrived = game.wait_for(lambda e: e["event"] == "arrived" and e["npc"] == "traveler", timeout_s=30)
        assert arrived, "\n".join(game.lines[-30:])
        game.pump(4)  # the jiggle's end and Tom's arrival ask nothing more
    attention = {npc: [r["attention"] for r in decides(npc)] for npc in ("near", "traveler", "jiggler", "companion")}
    changes = [(e["npc"], e["in_view"], e["mode"]) for e in game.events if e["event"] == "attention"]
    assert attention == {
        "near": ["ATTENTION_IN_VIEW"],
        "traveler": ["ATTENTION_OUT_OF_VIEW", "ATTENTION_IN_VIEW"],
        "jiggler": ["ATTENTION_OUT_OF_VIEW", "ATTENTION_IN_VIEW"],
        "companion": ["ATTENTION_IN_VIEW"],
    }, (attention, changes)
    # Tom asked again on his way in: before he arrived (his 8 s walk is 8 game minutes), within the
    # hour, not ten hours, after the first.
    first, early = decides("traveler")
    assert _game_time(early["gameTime"]) - _game_time(first["gameTime"]) < timedelta(hours=1), (first, early)
    walked_in = [e for e in game.events if e["event"] in ("attention", "arrived") and e["npc"] == "traveler"]
    assert [(e["event"], e.get("in_view")) for e in walked_in] == [("attention", True), ("arrived", None)], walked_in
    assert ("near", True, "auto") in changes and ("companion", True, "always_in_view") in changes, changes
    assert [c for c in changes if c[0] == "jiggler"] == [("jiggler", True, "auto")], changes
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


@pytest.mark.godot
@pytest.mark.slow
def test_the_ville_tells_an_older_brain_who_the_player_sees_over_single_decides(tmp_path: Path) -> None:
    """The demo with its camera following the player (`?follow-player`, zoomed in at the
    town's top-left corner) against a brain older than DecideBatch (404): after the first batch
    (or one per lane, sent before the first answer) every NPC decides over single Decides, and the
    404 is no error the game shows. The residents of the artists' co-living space around the
    player decide in view, the rest of the town out of view; `F` frames the whole town, and each
    NPC that was out of view asks again at once, in view (not at its ten-hour action's end); the
    bar counts them. One page for both (issue 40: a page costs some 20 CPU-s; the attention a
    batched Decide carries is checked by the 2D town's test, which batches)."""
    _needs_browser()
    web_dir = godot_web.build_web(tmp_path / "web")

    def older(method: str, request: dict) -> tuple[float, dict] | None:
        return _error("unimplemented", "Not Found") if method == "DecideBatch" else None

    def first_decides() -> dict[str, str]:
        first: dict[str, str] = {}
        for method, request in brain.calls:
            if method == "Decide":
                first.setdefault(request["npcId"], request["attention"])
        return first

    with _StandInBrain(web_dir, older, batches=False) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&follow-player") as game:
        assert game.wait_until(lambda: len(first_decides()) == 25, timeout_s=90), "\n".join(game.lines[-30:])
        game.pump(3)
        game.screenshot(ARTIFACTS / "godot-ville-follow-player.png")
        followed = dict(first_decides())
        before = len(brain.calls)
        game.press("f")
        assert game.wait_until(lambda: len({r["npcId"] for m, r in brain.calls[before:] if m == "Decide"})
                               >= list(followed.values()).count("ATTENTION_OUT_OF_VIEW"), timeout_s=30), (
            brain.calls[before:])
        game.pump(3)
        game.press("Space")
        paused = game.wait_for(lambda e: e["event"] == "clock" and e["paused"], timeout_s=10)
    batches = [i for i, (m, _) in enumerate(brain.calls) if m == "DecideBatch"]
    assert 1 <= len(batches) <= 2 and all(m != "DecideBatch" for m, _ in brain.calls[batches[-1] + 1:]), batches
    assert not [e for e in game.events if e["event"] == "brain_error"], game.lines[-30:]
    in_view = sorted(npc for npc, attention in followed.items() if attention == "ATTENTION_IN_VIEW")
    assert {"latoya_williams", "abigail_chen"} <= set(in_view), followed
    assert "isabella_rodriguez" not in in_view and len(in_view) <= 8, followed
    # After F: one early Decide, in view, for each NPC that was out of view, and for no other.
    early = [r for m, r in brain.calls[before:] if m == "Decide"]
    assert sorted(r["npcId"] for r in early) == sorted(n for n, a in followed.items() if a != "ATTENTION_IN_VIEW"), early
    assert {r["attention"] for r in early} == {"ATTENTION_IN_VIEW"}, early
    assert paused and len(paused["npcs_in_view"]) == 25, paused
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


@pytest.mark.godot
@pytest.mark.slow
def test_the_project_setting_sets_every_agents_attention_unless_the_agent_says_otherwise(
        tmp_path: Path) -> None:
    """`npc_brain/agents/attention` = Always out of view (a game that wants coarse thinking
    everywhere): Nora, on screen, decides out of view; Cora, whose agent says always in view,
    still decides in view."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game", settings={"agents/attention": "2"})
    (project / "bot.gd").write_text(_BOT_2D)
    (project / "town.tscn").write_text(_scene_2d())
    web_dir = godot_web.build_web(tmp_path / "web", project)

    def first_decides() -> dict[str, str]:
        first: dict[str, str] = {}
        for method, request in brain.calls:
            if method == "Decide":
                first.setdefault(request["npcId"], request["attention"])
        return first

    with _StandInBrain(web_dir, lambda method, request: None) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60") as game:
        assert game.wait_until(lambda: len(first_decides()) == 4, timeout_s=60), "\n".join(game.lines[-30:])
    assert first_decides() == {"near": "ATTENTION_OUT_OF_VIEW", "traveler": "ATTENTION_OUT_OF_VIEW",
                               "jiggler": "ATTENTION_OUT_OF_VIEW", "companion": "ATTENTION_IN_VIEW"}, brain.calls
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


# --------------------------------------------------------------------------------------------
# A host game written as a user would: its own tile map (16 px cells painted at negative
# coordinates, the layer offset from the World), its own navigation (NavigationAgent2D bodies
# on the tiles' navigation polygons, a crate the navigation does not know), a street that is no
# arena, and the player on it.
# --------------------------------------------------------------------------------------------

# Rows y = -8..3, columns x = -12..11. '.' floor (Ground, with a navigation polygon), '#' wall
# (Walls, the World's solid_layer). Bakery x -11..-6, shed x -4..0 (its door, x -2, has a crate
# in it), home x 2..10, all y -7..-5; the street y -3..2 is no arena.
_HARBOR_MAP = [
    "########################",
    "#......#.....#.........#",
    "#......#.....#.........#",
    "#......#.....#.........#",
    "###.#######.#####.######",
    "#......................#",
    "#......................#",
    "#......................#",
    "#......................#",
    "#......................#",
    "#......................#",
    "########################",
]
_HARBOR_ORIGIN = (-12, -8)  # the map's first cell
_HARBOR_LAYER_AT = (200, 150)  # the layers' offset; the World stays at the origin


def _cells(char: str) -> list[tuple[int, int]]:
    ox, oy = _HARBOR_ORIGIN
    return [(ox + i, oy + j) for j, row in enumerate(_HARBOR_MAP) for i, c in enumerate(row) if c == char]


def _tile_map_data(cells: list[tuple[int, int]], atlas: tuple[int, int]) -> str:
    """TileMapLayer.tile_map_data: format 0, then per cell x, y (int16), source, atlas x, atlas y,
    alternative (uint16)."""
    data = struct.pack("<H", 0) + b"".join(struct.pack("<hhHHHH", x, y, 0, *atlas, 0) for x, y in cells)
    return "PackedByteArray(" + ", ".join(str(b) for b in data) + ")"


def _cell_center(cell: tuple[int, int]) -> tuple[int, int]:
    return _HARBOR_LAYER_AT[0] + cell[0] * 16 + 8, _HARBOR_LAYER_AT[1] + cell[1] * 16 + 8


# (node, npc id, name, home, cell, walk_speed in tiles/s)
_HARBOR_NPCS = [
    ("Ann", "ann_aho", "Ann Aho", "Bakery:shop", (5, -1)),
    ("Bob", "bob_bell", "Bob Bell", "Home:room", (1, -2)),
    ("Carl", "carl_cole", "Carl Cole", "Home:room", (8, -6)),
    ("Dan", "dan_dunn", "Dan Dunn", "Bakery:shop", (-3, 1)),
]


# Two colors, floor and wall, for tiles up to 32 px (no image to import).
_TILE_TEXTURE = '''[sub_resource type="Gradient" id="Gradient_tiles"]
interpolation_mode = 1
offsets = PackedFloat32Array(0, 0.5)
colors = PackedColorArray(0.76, 0.66, 0.5, 1, 0.29, 0.24, 0.22, 1)

[sub_resource type="GradientTexture2D" id="GradientTexture2D_tiles"]
gradient = SubResource("Gradient_tiles")
width = 64
height = 32

'''


def _host_scene_header(navigation: str) -> str:
    """A host game's scene header: the addon's scripts it uses (ids 1_agent .. 7_nav) and the
    guide's player (8_player)."""
    ext = [f'[ext_resource type="Script" path="res://addons/npc_brain/{path}.gd" id="{rid}"]' for path, rid in [
        ("runtime/npc_brain_agent", "1_agent"), ("runtime/npc_brain_persona", "2_persona"),
        ("world/npc_brain_world", "3_world"), ("world/npc_brain_sector", "4_sector"),
        ("world/npc_brain_arena", "5_arena"), ("world/npc_brain_object", "6_object"),
        (f"navigation/npc_brain_navigation_{navigation}", "7_nav")]]
    ext.append('[ext_resource type="Script" path="res://player.gd" id="8_player"]')
    return "[gd_scene format=3]\n\n" + "\n".join(ext) + "\n"


def _host_persona(npc_id: str, name: str, home: str) -> str:
    return f'''[sub_resource type="Resource" id="Persona_{npc_id}"]
script = ExtResource("2_persona")
display_name = "{name}"
home = "{home}"
'''


def _walkable_tiles(tile_set_id: str) -> str:
    """A 2D host scene's tile set whose first tile is floor on navigation layer 1 (the second a
    wall), with the NPCs' collision circle: the sub-resources after `_TILE_TEXTURE`."""
    return '''[sub_resource type="NavigationPolygon" id="NavigationPolygon_floor"]
vertices = PackedVector2Array(-8, -8, 8, -8, 8, 8, -8, 8)
polygons = Array[PackedInt32Array]([PackedInt32Array(0, 1, 2, 3)])

[sub_resource type="TileSetAtlasSource" id="TileSetAtlasSource_tiles"]
texture = SubResource("GradientTexture2D_tiles")
0:0/0 = 0
0:0/0/navigation_layer_0/polygon = SubResource("NavigationPolygon_floor")
1:0/0 = 0

[sub_resource type="TileSet" id="''' + tile_set_id + '''"]
navigation_layer_0/layers = 1
sources/0 = SubResource("TileSetAtlasSource_tiles")

[sub_resource type="CircleShape2D" id="CircleShape2D_npc"]
radius = 4.0
'''


def _harbor_scene(npcs: list[tuple[str, str, str, str, tuple[int, int]]] = _HARBOR_NPCS) -> str:
    parts = [_host_scene_header("2d"), _TILE_TEXTURE, _walkable_tiles("TileSet_harbor") + '''
[sub_resource type="RectangleShape2D" id="RectangleShape2D_crate"]
size = Vector2(16, 16)
''']
    parts += [_host_persona(npc_id, name, home) for _, npc_id, name, home, _ in npcs]
    x, y = _HARBOR_LAYER_AT
    crate = _cell_center((-2, -4))
    parts.append(f'''[node name="Harbor" type="Node2D"]

[node name="Ground" type="TileMapLayer" parent="."]
position = Vector2({x}, {y})
tile_map_data = {_tile_map_data(_cells("."), (0, 0))}
tile_set = SubResource("TileSet_harbor")

[node name="Walls" type="TileMapLayer" parent="."]
position = Vector2({x}, {y})
tile_map_data = {_tile_map_data(_cells("#"), (1, 0))}
tile_set = SubResource("TileSet_harbor")

[node name="Crate" type="StaticBody2D" parent="."]
position = Vector2{crate}

[node name="CollisionShape2D" type="CollisionShape2D" parent="Crate"]
shape = SubResource("RectangleShape2D_crate")

[node name="World" type="Node2D" parent="." node_paths=PackedStringArray("map_layer", "solid_layer")]
script = ExtResource("3_world")
world_name = "Harbor"
map_layer = NodePath("../Ground")
solid_layer = NodePath("../Walls")

[node name="Bakery" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Shop" type="Node" parent="World/Bakery"]
script = ExtResource("5_arena")
arena_name = "shop"
rect = Rect2i(-11, -7, 6, 3)

[node name="Counter" type="Node" parent="World/Bakery/Shop"]
script = ExtResource("6_object")
object_name = "counter"
tile = Vector2i(-10, -6)

[node name="Shed" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Shed" type="Node" parent="World/Shed"]
script = ExtResource("5_arena")
arena_name = "shed"
rect = Rect2i(-4, -7, 5, 3)

[node name="Home" type="Node" parent="World"]
script = ExtResource("4_sector")
residents = PackedStringArray("carl_cole", "Bob Bell")

[node name="Room" type="Node" parent="World/Home"]
script = ExtResource("5_arena")
arena_name = "room"
rect = Rect2i(2, -7, 9, 3)

[node name="Player" type="CharacterBody2D" parent="."]
position = Vector2{_cell_center((0, 0))}
script = ExtResource("8_player")
''')
    parts += [_host_npc(node, npc_id, "2D", f"Vector2{_cell_center(cell)}\ncollision_layer = 2", "CircleShape2D_npc",
                        4.0, "walk_speed = 2.0\narrival_grace_s = 1.0\n") for node, npc_id, _, _, cell in npcs]
    return "\n".join(parts)


def _host_npc(node: str, npc_id: str, dim: str, position: str, shape: str, reach: float, agent_extra: str = "") -> str:
    """An NPC body as a user builds one: a CharacterBody2D/3D (`dim`), its collision shape, a
    NavigationAgent2D/3D stopping within `reach`, an NpcBrainAgent and an NpcBrainNavigation2D/3D."""
    return f'''[node name="{node}" type="CharacterBody{dim}" parent="."]
position = {position}

[node name="CollisionShape{dim}" type="CollisionShape{dim}" parent="{node}"]
shape = SubResource("{shape}")

[node name="NavigationAgent{dim}" type="NavigationAgent{dim}" parent="{node}"]
path_desired_distance = {reach}
target_desired_distance = {reach}

[node name="NpcBrainAgent" type="Node" parent="{node}"]
script = ExtResource("1_agent")
npc_id = "{npc_id}"
persona = SubResource("Persona_{npc_id}")
{agent_extra}
[node name="NpcBrainNavigation{dim}" type="Node" parent="{node}"]
script = ExtResource("7_nav")
'''


def _seen(decide: dict) -> dict[str, str]:
    return {p["subject"]: p.get("address", "") for p in decide.get("perceptions", [])}


@pytest.mark.godot
@pytest.mark.slow
def test_a_host_game_with_its_own_tile_map_navigation_and_street(tmp_path: Path) -> None:
    """The World reads the map from a TileMapLayer painted at negative cells with 16 px tiles,
    offset from the World: the brain gets the layer's cells. NavigationAgent2D bodies walk with
    NpcBrainNavigation2D: Ann reaches the bakery's counter around the walls; Dan, sent into the
    shed whose door a crate blocks (the navigation does not know it), is given up on after the
    arrival timeout, asks again at once and walks to the bakery. On the street (no arena) Ann and
    Bob see each other and the player; nobody sees Carl behind his home's wall. Bob, listed among
    Home's residents by name, is sent by id, with a warning."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "town.tscn").write_text(_harbor_scene())
    web_dir = godot_web.build_web(tmp_path / "web", project)
    to_shed = {"dan_dunn": 1}

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide":
            return None
        npc = request["npcId"]
        address, minutes = {"ann_aho": ("Harbor:Bakery:shop:counter", 600), "bob_bell": ("Harbor:Bakery:shop", 600),
                            "carl_cole": (request["address"], 600)}.get(npc, ("Harbor:Bakery:shop", 600))
        if npc == "dan_dunn" and to_shed["dan_dunn"]:
            to_shed["dan_dunn"] -= 1
            address, minutes = "Harbor:Shed:shed", 1
        return 0.0, {"traceId": f"{npc}-{len(brain.calls)}", "action": {
            "description": "going about the day", "address": address, "durationMinutes": minutes,
            "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    started = time.monotonic()
    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&npc-brain-log=events") as game:
        ann = game.wait_for(lambda e: e["event"] == "arrived" and e["npc"] == "ann_aho", timeout_s=60)
        assert ann, "\n".join(game.lines[-30:])
        dan = game.wait_for(lambda e: e["event"] == "arrived" and e["npc"] == "dan_dunn", timeout_s=60)
        assert dan, "\n".join(game.lines[-30:])
    print(f"host game test: {time.monotonic() - started:.1f} s in the engine")
    world = next(r for m, r in brain.calls if m == "RegisterWorld")["world"]
    assert (world["name"], world["width"], world["height"]) == ("Harbor", 22, 10), world
    sectors = {s["name"]: s for s in world["sectors"]}
    assert sectors["Home"]["residents"] == ["carl_cole", "bob_bell"], sectors["Home"]
    shop = sectors["Bakery"]["arenas"][0]
    assert {"x": -11, "y": -7} in shop["tiles"] and len(shop["tiles"]) == 18, shop
    assert shop["objects"][0]["tiles"] == [{"x": -10, "y": -6}], shop
    spawns = {r["npcId"]: r["tile"] for m, r in brain.calls if m == "SpawnNpc"}
    assert spawns == {npc_id: {"x": cell[0], "y": cell[1]} for _, npc_id, _, _, cell in _HARBOR_NPCS}, spawns
    assert ann["tile"] == [-10, -6] and ann["at"] == "Harbor:Bakery:shop", ann
    decides = [(r["npcId"], r) for m, r in brain.calls if m == "Decide"]
    first = {}
    for npc, request in decides:
        first.setdefault(npc, request)
    assert {"Bob Bell", "the player"} <= set(_seen(first["ann_aho"])), first["ann_aho"]
    assert {"Ann Aho", "the player"} <= set(_seen(first["bob_bell"])), first["bob_bell"]
    assert all("Carl Cole" not in _seen(r) for _, r in decides), "Carl is behind a wall"
    assert not _seen(first["carl_cole"]), first["carl_cole"]
    # Dan: stuck at the crate, given up on after the timeout, asks again at once, moves on.
    events = [e for e in game.events if e.get("npc") == "dan_dunn" and e["event"] in ("unreachable", "decision", "arrived")]
    kinds = [(e["event"], e.get("address")) for e in events]
    assert kinds[:4] == [("decision", "Harbor:Shed:shed"), ("unreachable", "Harbor:Shed:shed"),
                         ("decision", "Harbor:Bakery:shop"), ("arrived", "Harbor:Bakery:shop")], kinds
    assert "timeout" in events[1]["reason"], events[1]
    assert dan["at"] == "Harbor:Bakery:shop", dan
    warnings = godot_web.engine_problems(game.lines)
    assert len(warnings) == 1 and 'resident "Bob Bell" is a name: write its npc id "bob_bell"' in warnings[0], warnings


_HILL_SCENE = _host_scene_header("3d") + '''
[sub_resource type="NavigationMesh" id="NavigationMesh_hill"]
vertices = PackedVector3Array(0, 0, 0, 10, 0, 0, 10, 0, 6, 0, 0, 6, 14, 2, 0, 14, 2, 6, 20, 2, 0, 20, 2, 6)
polygons = [PackedInt32Array(0, 1, 2, 3), PackedInt32Array(1, 4, 5, 2), PackedInt32Array(4, 6, 7, 5)]

[sub_resource type="CapsuleShape3D" id="CapsuleShape3D_npc"]
radius = 0.3
height = 1.6

''' + _host_persona("uma_up", "Uma Up", "Yard:yard") + "\n" + _host_persona("dov_down", "Dov Down", "Roof:roof") + '''
[node name="Hill" type="Node3D"]

[node name="NavigationRegion3D" type="NavigationRegion3D" parent="."]
navigation_mesh = SubResource("NavigationMesh_hill")

[node name="World" type="Node2D" parent="."]
script = ExtResource("3_world")
world_name = "Hill"
grid_size = Vector2i(20, 6)

[node name="Yard" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Yard" type="Node" parent="World/Yard"]
script = ExtResource("5_arena")
arena_name = "yard"
rect = Rect2i(1, 1, 4, 4)

[node name="Roof" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Roof" type="Node" parent="World/Roof"]
script = ExtResource("5_arena")
arena_name = "roof"
rect = Rect2i(16, 1, 3, 4)

[node name="Telescope" type="Node" parent="World/Roof/Roof"]
script = ExtResource("6_object")
object_name = "telescope"
tile = Vector2i(17, 2)
'''


@pytest.mark.godot
@pytest.mark.slow
def test_3d_bodies_walk_a_navigation_mesh_with_two_heights(tmp_path: Path) -> None:
    """A NavigationMesh with a ground (y 0), a ramp and a roof (y 2 m): NpcBrainNavigation3D puts
    each target on the mesh at its height, so Uma walks from the yard up the ramp to the roof's
    telescope, and Dov from the roof down to the yard; both arrive, at the mesh's heights."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    npcs = [_host_npc("Uma", "uma_up", "3D", "Vector3(2.5, 0, 2.5)", "CapsuleShape3D_npc", 0.3),
            _host_npc("Dov", "dov_down", "3D", "Vector3(18.5, 2, 4.5)", "CapsuleShape3D_npc", 0.3)]
    (project / "town.tscn").write_text(_HILL_SCENE + "\n" + "\n".join(npcs))
    web_dir = godot_web.build_web(tmp_path / "web", project)
    goals = {"uma_up": "Hill:Roof:roof:telescope", "dov_down": "Hill:Yard:yard"}

    def decide(method: str, request: dict) -> tuple[float, dict] | None:
        if method != "Decide":
            return None
        return 0.0, {"traceId": request["npcId"], "action": {
            "description": "going about the day", "address": goals[request["npcId"]], "durationMinutes": 600,
            "startTime": request["gameTime"], "source": "ACTION_SOURCE_PLAN"}}

    started = time.monotonic()
    with _StandInBrain(web_dir, decide) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?time-scale=60&npc-brain-log=events") as game:
        assert game.wait_until(lambda: {e["npc"] for e in game.events if e["event"] == "arrived"} == set(goals),
                               timeout_s=60), "\n".join(game.lines[-30:])
    print(f"3D navigation mesh test: {time.monotonic() - started:.1f} s in the engine")
    arrived = {e["npc"]: e for e in game.events if e["event"] == "arrived"}
    uma, dov = arrived["uma_up"], arrived["dov_down"]
    assert uma["tile"] == [17, 2] and uma["at"] == "Hill:Roof:roof", uma
    assert dov["at"] == "Hill:Yard:yard", dov
    assert abs(uma["position"][1] - 2.0) < 0.3 and abs(dov["position"][1]) < 0.3, (uma, dov)
    assert [m for m, _ in brain.calls].count("Decide") == 2
    assert not godot_web.engine_problems(game.lines), godot_web.engine_problems(game.lines)


@pytest.mark.godot
@pytest.mark.slow
def test_two_npcs_on_a_street_see_each_other_and_talk(brain_factory, fake_llm, tmp_path: Path) -> None:
    """The same host game with a real brain: Ann and Bob start on the street (no arena), four tiles
    apart; the first two who see each other talk where they meet: the first to hear of the
    conversation stands, the other walks up beside it, as the paper's initiator does (the brain's
    address for a chat is the arena each was last in: walking back there parted the two as they
    talked)."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "town.tscn").write_text(_harbor_scene(_HARBOR_NPCS[:3]))
    web_dir = godot_web.build_web(tmp_path / "web", project)
    brain = brain_factory(web_root=web_dir)
    fake_llm.queue(*[{"json": {"choice": "talk", "reason": "a neighbour", "new_activity": ""}}] * 4, purpose="react")
    fake_llm.queue(*[{"json": {"utterance": "Morning! Busy street today.", "end_conversation": False}}] * 8,
                   purpose="converse_turn")
    names = {npc_id: name for _, npc_id, name, _, _ in _HARBOR_NPCS[:3]}

    def pair() -> set[str]:
        """The first two who each decided to chat with the other (who meets whom follows the plans,
        whose places the fake model draws, and the game's timing: in the doorway of the shed, Bob met
        Carl). The first to hear may carry both speakers' lines; the other's walk comes with its own
        decision."""
        partner = {e["npc"]: e["description"].split(" is chatting with ", 1)[1] for e in game.events
                   if e["event"] == "decision" and " is chatting with " in e["description"]}
        return next(({a, b} for a in partner for b in partner if a < b and partner[a] == names[b]
                     and partner[b] == names[a]), set())

    started = time.monotonic()
    # A game minute is two seconds: the one who hears of a chat second must ask within its five game
    # minutes to join it, and at a second a minute a busy machine's stall let a chat end unjoined.
    with godot_web.HeadlessGame(f"{brain.http_url}/?time-scale=30&npc-brain-log=events") as game:
        assert game.wait_until(lambda: pair(), timeout_s=180), "\n".join(game.lines[-40:])
        # The walk is logged right after its decision; the asserts below say what went wrong if none comes.
        game.wait_until(lambda: any(e["event"] == "walking" and e.get("to_meet") for e in game.events), timeout_s=10)
        walkers = {e["npc"] for e in game.events if e["event"] == "walking" and e.get("to_meet")}
        game.wait_until(lambda: walkers <= {e["npc"] for e in game.events if e["event"] == "arrived"}, timeout_s=60)
    print(f"street talk test: {time.monotonic() - started:.1f} s in the engine")
    talkers = pair()
    speakers = {e["speaker"] for e in game.events if e["event"] == "dialogue" and e["npc"] in talkers}
    assert {names[npc] for npc in talkers} <= speakers <= set(names.values()), speakers
    warnings = godot_web.engine_problems(game.lines)
    assert len(warnings) == 1 and 'resident "Bob Bell" is a name' in warnings[0], warnings
    walks = {}
    for npc in talkers:
        moves = [e for e in game.events if e.get("npc") == npc and e["event"] in ("decision", "walking", "arrived")]
        chatting = False
        for e in moves:
            if e["event"] == "decision":
                chatting = "is chatting with" in e["description"]
            if chatting and e["event"] == "walking":
                assert e.get("to_meet") in talkers - {npc}, f"{npc} walks off while it talks: {moves}"
                walks[npc] = e
    assert len(walks) == 1, f"one of the two walks up to the other, not both, not neither: {walks}"
    [(walker, walk)] = walks.items()
    apart = [max(abs(a - b) for a, b in zip(walk[end], walk["beside"], strict=True)) for end in ("from", "to")]
    assert apart[0] > 1 and apart[1] == 1, walk  # from a few tiles off to the tile beside the one who stands
    assert walker in {e["npc"] for e in game.events if e["event"] == "arrived"}, f"{walker} never got there"


_BELL_VERB = '''[ext_resource type="Script" path="res://verbs.gd" id="9_verbs"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_verb.gd" id="10_verb"]
[ext_resource type="Script" path="res://addons/npc_brain/runtime/npc_brain_verb_argument.gd" id="11_argument"]

[sub_resource type="Resource" id="Argument_times"]
script = ExtResource("11_argument")
argument_name = "times"
description = "how many strokes"
type = 2
minimum = 1.0
maximum = 12.0

[sub_resource type="Resource" id="Argument_tone"]
script = ExtResource("11_argument")
argument_name = "tone"
choices = PackedStringArray("loud", "soft")

[sub_resource type="Resource" id="Verb_ring"]
script = ExtResource("10_verb")
verb_name = "ring_bell"
description = "Ring the bell in the bakery shop to tell the harbor it is noon."
place = 1
targets = PackedStringArray("bell")
arguments = Array[ExtResource("11_argument")]([SubResource("Argument_times"), SubResource("Argument_tone")])
'''


def _bell_scene() -> str:
    """The harbor with Bob alone (the crate gone), a bell in the bakery's shop and the verb "ring_bell" on it
    (declared on the World, as in the inspector), Bob's persona saying he rings it at noon, and
    the guide's verbs.gd on his body answering for the game."""
    scene = _harbor_scene([_HARBOR_NPCS[1]])
    for old, new in [
        ('id="8_player"]\n', 'id="8_player"]\n' + _BELL_VERB),
        ('display_name = "Bob Bell"\n', 'display_name = "Bob Bell"\nidentity = "Bob Bell keeps the bakery\'s bell."\n'
         'lifestyle = "Bob wakes up at 6 am, rings the bakery bell at noon every day, and goes to bed at 10 pm."\n'),
        ('solid_layer = NodePath("../Walls")\n',
         'solid_layer = NodePath("../Walls")\nverbs = Array[ExtResource("10_verb")]([SubResource("Verb_ring")])\n'),
        ('tile = Vector2i(-10, -6)\n', 'tile = Vector2i(-10, -6)\n\n[node name="Bell" type="Node" '
         'parent="World/Bakery/Shop"]\nscript = ExtResource("6_object")\nobject_name = "bell"\ntile = Vector2i(-7, -6)\n'),
        ('npc_id = "bob_bell"\n', 'npc_id = "bob_bell"\nattention_mode = 2\n'),
        ('[node name="CollisionShape2D" type="CollisionShape2D" parent="Crate"]\n', ''),  # no crate in his way
    ]:
        assert scene.count(old) == 1, old
        scene = scene.replace(old, new)
    return scene + '\n[node name="Verbs" type="Node" parent="Bob"]\nscript = ExtResource("9_verbs")\n'


def _memories(http_url: str, npc_id: str) -> list[str]:
    request = urllib.request.Request(
        f"{http_url}/npc_brain.v1.BrainService/ListMemories", headers={"Content-Type": "application/json"},
        data=json.dumps({"npcId": npc_id, "limit": 200}).encode())
    with urllib.request.urlopen(request, timeout=10) as response:
        return [m["description"] for m in json.load(response).get("memories", [])]


@pytest.mark.godot
@pytest.mark.slow
def test_an_npc_rings_the_declared_bell_at_noon_and_remembers_it(brain_factory, tmp_path: Path) -> None:
    """A verb declared in the scene ("ring_bell" on the bakery's bell, typed arguments) reaches
    the brain with the world; Bob, whose persona says he rings the bell at noon, is planned by the
    prompt-reading stand-in model (no answer scripted): at noon his agent, at the bell, emits
    action_requested with typed arguments in range, the guide's verbs.gd reports it done, and the
    next Decide makes it Bob's memory."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    (project / "town.tscn").write_text(_bell_scene())
    web_dir = godot_web.build_web(tmp_path / "web", project)
    with StandInOpenAI() as model:
        brain = brain_factory(web_root=web_dir, llm_base_url=model.base_url)
        started = time.monotonic()
        url = f"{brain.http_url}/?time-scale=60&start-time=2026-02-13T11:40:00Z&npc-brain-log=events"
        with godot_web.HeadlessGame(url) as game:
            done = game.wait_for(lambda e: e["event"] == "action_done", timeout_s=150)
            assert done, "\n".join(game.lines[-40:])
            remembered = wait_until(lambda: [m for m in _memories(brain.http_url, "bob_bell") if "did ring_bell" in m],
                                    what="Bob remembered ringing the bell", poll_s=1)
        print(f"bell test: {time.monotonic() - started:.1f} s in the engine")
    [asked] = [e for e in game.events if e["event"] == "action_requested"]
    assert asked["npc"] == "bob_bell" and asked["verb"] == "ring_bell", asked
    assert asked["target"] == "Harbor:Bakery:shop:bell" and _game_time(asked["game_time"]).hour == 12, asked
    assert set(asked["args"]) == {"times", "tone"} and 1 <= asked["args"]["times"] <= 12, asked
    assert asked["args"]["tone"] in ("loud", "soft"), asked
    arrived = [e for e in game.events if e["event"] == "arrived" and e.get("address") == "Harbor:Bakery:shop:bell"]
    assert arrived and arrived[0]["tile"] == [-7, -6], arrived
    assert done["detail"].startswith("the bell rang"), done
    assert remembered and done["detail"] in remembered[0], remembered


@pytest.mark.godot
@pytest.mark.slow
def test_a_verb_the_brain_refuses_is_named_by_the_worlds_own_check(brain_factory, tmp_path: Path) -> None:
    """The bell's "tone" argument left a Choice without choices: the real brain refuses the world
    with the reason, and the game's error names the verb and the argument from its own check."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    scene = _bell_scene()
    assert scene.count('choices = PackedStringArray("loud", "soft")\n') == 1
    (project / "town.tscn").write_text(scene.replace('choices = PackedStringArray("loud", "soft")\n', ""))
    brain = brain_factory(web_root=godot_web.build_web(tmp_path / "web", project))

    def refused() -> list[str]:
        return [line for line in godot_web.engine_problems(game.lines) if "refused world" in line]

    with godot_web.HeadlessGame(f"{brain.http_url}/?npc-brain-log=events") as game:
        assert game.wait_until(lambda: bool(refused()), timeout_s=60), "\n".join(game.lines[-30:])
    [pushed] = refused()
    assert "'tone' is a choice without choices" in pushed, pushed
    assert 'Verb "ring_bell" argument "tone": a Choice needs its choices.' in pushed, pushed
    assert not [e for e in game.events if e["event"] in ("world_registered", "npc_spawned")]


_MISFIT_SCENE = '''
[sub_resource type="TileSetAtlasSource" id="TileSetAtlasSource_small"]
texture = SubResource("GradientTexture2D_tiles")
0:0/0 = 0

[sub_resource type="TileSet" id="TileSet_small"]
sources/0 = SubResource("TileSetAtlasSource_small")

[sub_resource type="TileSetAtlasSource" id="TileSetAtlasSource_big"]
texture = SubResource("GradientTexture2D_tiles")
texture_region_size = Vector2i(32, 32)
0:0/0 = 0

[sub_resource type="TileSet" id="TileSet_big"]
tile_size = Vector2i(32, 32)
sources/0 = SubResource("TileSetAtlasSource_big")

[node name="Misfit" type="Node2D"]

[node name="Ground" type="TileMapLayer" parent="."]
position = Vector2(-40, 24)
tile_map_data = {ground}
tile_set = SubResource("TileSet_small")

[node name="Rocks" type="TileMapLayer" parent="."]
tile_map_data = {rocks}
tile_set = SubResource("TileSet_big")

[node name="Carpet" type="TileMapLayer" parent="."]
position = Vector2(-32, 24)
tile_map_data = {ground}
tile_set = SubResource("TileSet_small")

[node name="World" type="Node2D" parent="." node_paths=PackedStringArray("map_layer", "solid_layer")]
script = ExtResource("3_world")
map_layer = NodePath("../Ground")
solid_layer = NodePath("../Rocks")

[node name="Hall" type="Node" parent="World"]
script = ExtResource("4_sector")

[node name="Hall" type="Node" parent="World/Hall" node_paths=PackedStringArray("floor_layer")]
script = ExtResource("5_arena")
rect = Rect2i(-4, -2, 8, 4)
floor_layer = NodePath("../../../Carpet")
'''


@pytest.mark.godot
@pytest.mark.slow
def test_layers_that_cannot_match_the_worlds_tiles_are_warned_about(tmp_path: Path) -> None:
    """A World on a 16 px map layer (offset 40 px left, cells -4..3 x -2..1), with a solid layer of
    32 px tiles and an arena's floor layer shifted half a tile from the map: the game says so as
    it starts, once for each (their walls and floors would silently be elsewhere), and the
    brain still gets the map layer's grid under the neutral default name."""
    _needs_browser()
    project = godot_web.make_host_project(tmp_path / "game")
    cells = [(x, y) for x in range(-4, 4) for y in range(-2, 2)]
    (project / "town.tscn").write_text(_host_scene_header("2d") + _TILE_TEXTURE + _MISFIT_SCENE.format(
        ground=_tile_map_data(cells, (0, 0)), rocks=_tile_map_data([(0, 0)], (0, 0))))
    web_dir = godot_web.build_web(tmp_path / "web", project)
    with _StandInBrain(web_dir, lambda method, request: None) as brain, \
            godot_web.HeadlessGame(f"{brain.url}/?npc-brain-log=events") as game:
        assert game.wait_for(lambda e: e["event"] == "world_registered", timeout_s=60), "\n".join(game.lines[-30:])
    world = next(r for m, r in brain.calls if m == "RegisterWorld")["world"]
    assert (world["name"], world["width"], world["height"]) == ("world", 8, 4), world
    warnings = godot_web.engine_problems(game.lines)
    assert len(warnings) == 2, warnings
    assert "Rocks's cells are (32.0, 32.0) px, the world's tiles (16.0, 16.0) px" in warnings[0], warnings
    assert "Carpet's cells are shifted from the world's tiles by (-8.0, 0.0) px" in warnings[1], warnings
