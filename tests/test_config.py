"""Configuration as an operator meets it: every setting on `serve --help`, `npc-brain config` with
secrets masked, `.env`, and bad values as one line (the real command in a subprocess)."""

from __future__ import annotations

import os
from pathlib import Path
import subprocess
import sys
import tomllib

import pytest

from brain_server.config import Settings
from brain_server.settings_cli import MASK, env_name, flag


def npc_brain(*args: str, cwd: Path, env: dict[str, str] | None = None,
              module: str = "brain_server.cli") -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
    # A process of its own, not a fork of tests/zygote.py's: these commands import no server (0.5
    # CPU-s a run), and the fast tier runs them, where no zygote would be started otherwise.
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=clean | (env or {}))  # a hang guard


def _one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and result.stderr.strip().count("\n") == 0, result.stderr
    return result.stderr.strip()


@pytest.mark.parametrize("command", ["serve", "check", "config", "play"])
def test_help_lists_every_setting_with_its_description(command: str, tmp_path: Path) -> None:
    module = "npc_lab.cli" if command == "play" else "brain_server.cli"  # play is the lab's: npc-lab play
    result = npc_brain(command, "--help", cwd=tmp_path, env={"COLUMNS": "100"}, module=module)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    unwrapped = "".join(result.stdout.split())  # argparse wraps lines at spaces and after hyphens
    missing = [name for name, field in Settings.model_fields.items()
               if f"{flag(name)} " not in text or env_name(name) not in text or not field.description
               or "".join(field.description.split()) not in unwrapped]
    assert not missing, f"settings missing from --help or without a description: {missing}"


def test_config_prints_the_effective_settings_with_secrets_masked(tmp_path: Path) -> None:
    toml = tmp_path / "brain.toml"
    toml.write_text('llm_model = "from-toml"\nqdrant_api_key = "qdrant-secret-1"\n')
    result = npc_brain("config", "--config", str(toml), "--auth-token", "token-secret-2", "--grpc-port", "6001",
                       cwd=tmp_path, env={"NPC_BRAIN_LLM_API_KEY": "sk-secret-3", "NPC_BRAIN_ABLATE": "reflection"})
    assert result.returncode == 0, result.stderr
    for secret in ("qdrant-secret-1", "token-secret-2", "sk-secret-3"):
        assert secret not in result.stdout
    lines = result.stdout.splitlines()
    for expected in (f'auth_token = "{MASK}"', f'llm_api_key = "{MASK}"', f'qdrant_api_key = "{MASK}"',
                     'llm_model = "from-toml"', "grpc_port = 6001", 'ablate = ["reflection"]',
                     "http_port = 8080  # default", "# llm_base_url = (unset)"):
        assert expected in lines, expected
    assert len(lines) == len(Settings.model_fields)
    as_toml = tomllib.loads(result.stdout)  # what it prints is a TOML file the brain reads back
    assert as_toml["grpc_port"] == 6001 and as_toml["ablate"] == ["reflection"] and "llm_base_url" not in as_toml


def test_a_bad_log_level_is_one_line_naming_the_setting(tmp_path: Path) -> None:
    error = _one_line_error(npc_brain("serve", cwd=tmp_path, env={"NPC_BRAIN_LOG_LEVEL": "verbose"}))
    assert "NPC_BRAIN_LOG_LEVEL" in error and "'verbose'" in error and "'warning'" in error
    upper = npc_brain("config", cwd=tmp_path, env={"NPC_BRAIN_LOG_LEVEL": "WARNING"})
    assert 'log_level = "warning"' in upper.stdout.splitlines()


def test_bad_flags_are_one_line_and_secrets_stay_out_of_errors(tmp_path: Path) -> None:
    error = _one_line_error(npc_brain("config", "--grpc-port", "many", "--recency-decay", "7", cwd=tmp_path))
    assert "grpc_port (--grpc-port / NPC_BRAIN_GRPC_PORT)" in error and "'many'" in error and "recency_decay" in error
    error = _one_line_error(npc_brain("config", "--cors-origins", "a,b", cwd=tmp_path))
    assert "--cors-origins takes a JSON list" in error
    toml = tmp_path / "brain.toml"
    toml.write_text("auth_token = 987654321\n")  # a number where the token's text belongs
    error = _one_line_error(npc_brain("config", "--config", str(toml), cwd=tmp_path))
    assert "auth_token" in error and "987654321" not in error


def test_dotenv_is_read_below_the_environment_and_ignores_other_tools_variables(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("# a .env Compose and other tools read too\nOPENAI_API_KEY=not-ours\n"
                                   "NPC_BRAIN_GRPC_PORT=6002\nNPC_BRAIN_LLM_MODEL=from-dotenv\n")
    result = npc_brain("config", cwd=tmp_path, env={"NPC_BRAIN_LLM_MODEL": "from-env"})
    assert result.returncode == 0, result.stderr
    assert "grpc_port = 6002" in result.stdout.splitlines()
    assert 'llm_model = "from-env"' in result.stdout.splitlines()
    flags = npc_brain("config", "--grpc-port", "6003", cwd=tmp_path)
    assert "grpc_port = 6003" in flags.stdout.splitlines()


def test_a_misspelt_setting_in_dotenv_is_one_line(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("NPC_BRAIN_GRPC_PROT=6002\n")
    error = _one_line_error(npc_brain("serve", cwd=tmp_path))
    assert "NPC_BRAIN_GRPC_PROT" in error and "unknown setting" in error


def test_flags_decode_as_the_environment_does(tmp_path: Path) -> None:
    result = npc_brain("config", "--allowed-hosts", '["brain.example"]', "--llm-fallback-purposes",
                       "daily_plan,decompose", "--no-llm-probe", "--log-json", "--web-root", "web", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for expected in ('allowed_hosts = ["brain.example"]', 'llm_fallback_purposes = ["daily_plan", "decompose"]',
                     "llm_probe = false", "log_json = true", 'web_root = "web"'):
        assert expected in lines, expected


def test_the_settings_table_of_docs_configuration_is_up_to_date() -> None:
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run([sys.executable, "-m", "tools.config_doc", "--check"], capture_output=True,
                            text=True, timeout=60, cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
