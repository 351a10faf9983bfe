"""Config files and `.env` that are broken in ways a user can cause: one line, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from remecli.config import ConfigError, load_settings


def _error(tmp_path: Path, args: list[str], env: dict[str, str] | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        load_settings(args, environ=env or {}, cwd=tmp_path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_yaml_with_invalid_utf8_names_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(b"llm:\n  model_name: caf\xe9\n")
    message = _error(tmp_path, ["config=a"])
    assert "a.yaml" in message and "UTF-8" in message and "line 2" in message


def test_dotenv_with_invalid_utf8_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"REME_LLM_API_KEY=sk-\xff\xfe\n")
    message = _error(tmp_path, [])
    assert ".env" in message and "UTF-8" in message


@pytest.mark.parametrize("extra", [[], ["tools.bash_timeout=3"]])
def test_scalar_where_a_section_belongs_is_an_error(tmp_path: Path, extra: list[str]) -> None:
    (tmp_path / "a.yaml").write_text("tools: 5\n")
    message = _error(tmp_path, ["config=a", *extra])
    assert "'tools'" in message and "section" in message


def test_scalar_section_hidden_by_an_env_var_is_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("llm: fast\n")
    message = _error(tmp_path, ["config=a"], {"REME_LLM_API_KEY": "sk-x"})
    assert "'llm'" in message and "section" in message


def test_duplicated_top_level_key_names_the_key_and_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "llm:\n  model_name: first\n  timeout: 5\nlanguage: zh\nllm:\n  model_name: second\n"
    )
    message = _error(tmp_path, ["config=a"])
    assert "duplicated key 'llm'" in message and "line 5" in message and "line 1" in message


def test_duplicated_nested_key_is_an_error_too(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("llm:\n  timeout: 5\n  timeout: 6\n")
    assert "duplicated key 'timeout'" in _error(tmp_path, ["config=a"])


def test_empty_section_and_valid_files_still_load(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("tools: {}\nllm:\n  timeout: 7\n")
    settings = load_settings(["config=a"], environ={}, cwd=tmp_path)
    assert settings.llm.timeout == 7


def test_cli_with_a_non_utf8_config_prints_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_bytes(b"theme: \xff\n")
    proc = subprocess.run(
        [sys.executable, "-m", "remecli", "config=bad", "-p", "hi"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "bad.yaml" in proc.stderr
