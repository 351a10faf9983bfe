"""Config precedence and every bad-config error (one clear line, never a traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from remecli.config import ConfigError, load_settings
from remecli.config.loader import parse_value


def load(args=(), env=None, cwd: Path | None = None):
    return load_settings(list(args), environ=env or {}, cwd=cwd)


def test_defaults_without_any_file(tmp_path: Path) -> None:
    s = load(env={"XDG_DATA_HOME": str(tmp_path / "data")}, cwd=tmp_path)
    # no .reme here or above: the memory home (issue 22; it was ./.reme before)
    assert s.working_dir == str(tmp_path / "data" / "remecli") and s.max_input_length == 128_000
    assert s.memory_compact_ratio == 0.7 and s.language == ""


def test_packaged_cli_config_loads(tmp_path: Path) -> None:
    s = load(["config=cli"], cwd=tmp_path)
    assert s.llm.max_retries == 3 and s.tools.approval == "dangerous"


def test_precedence_defaults_yaml_env_cli(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("llm:\n  model_name: from-a\n  timeout: 5\nlanguage: zh\n")
    (tmp_path / "b.yaml").write_text("llm:\n  model_name: from-b\n")
    assert load(["config=a,b"], cwd=tmp_path).llm.model_name == "from-b"
    assert load(["config=a,b"], cwd=tmp_path).llm.timeout == 5
    env = {"REME_LLM_MODEL": "from-env"}
    assert load(["config=a,b"], env, tmp_path).llm.model_name == "from-env"
    s = load(["config=a,b", "llm.model_name=from-cli"], env, tmp_path)
    assert s.llm.model_name == "from-cli" and s.language == "zh"


def test_dotenv_fills_in_but_real_env_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("REME_LLM_API_KEY=sk-dotenv\nREME_LLM_BASE_URL=http://x/v1\n")
    s = load(env={"REME_LLM_BASE_URL": "http://real/v1"}, cwd=tmp_path)
    assert s.llm.api_key == "sk-dotenv" and s.llm.base_url == "http://real/v1"


def test_every_env_var_maps_to_a_setting(tmp_path: Path) -> None:
    env = {
        "REME_LLM_API_KEY": "k",
        "REME_LLM_BASE_URL": "http://h/v1",
        "REME_LLM_MODEL": "m",
        "REME_EMBEDDING_API_KEY": "ek",
        "REME_EMBEDDING_BASE_URL": "http://e/v1",
        "REME_EMBEDDING_MODEL": "em",
        "REME_WORKING_DIR": "/tmp/w",
        "TAVILY_API_KEY": "tv",
    }
    s = load(env=env, cwd=tmp_path)
    assert (s.llm.api_key, s.llm.base_url, s.llm.model_name) == ("k", "http://h/v1", "m")
    assert (s.search.embedding.api_key, s.search.embedding.base_url) == ("ek", "http://e/v1")
    assert s.search.embedding.model_name == "em"
    assert s.working_dir == "/tmp/w" and s.tools.tavily_api_key == "tv"


def test_config_by_path_and_yml_in_cwd(tmp_path: Path) -> None:
    sub = tmp_path / "conf"
    sub.mkdir()
    (sub / "x.yaml").write_text("theme: remecli-light\n")
    (tmp_path / "mine.yml").write_text("max_input_length: 32000\n")
    assert load([f"config={sub / 'x.yaml'}"], cwd=tmp_path).theme == "remecli-light"
    assert load(["config=mine"], cwd=tmp_path).max_input_length == 32000


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("False", False),
        ("null", None),
        ("42", 42),
        ("0.5", 0.5),
        ('["a", 1]', ["a", 1]),
        ('{"k": 2}', {"k": 2}),
        ("gpt-4o", "gpt-4o"),
        ("1e3", 1000.0),
    ],
)
def test_values_are_typed(text: str, value) -> None:
    assert parse_value(text) == value


@pytest.mark.parametrize(
    ("args", "files", "expected"),
    [
        (
            ["llm.modle=x"],
            {},
            "unknown setting 'llm.modle' (on the command line); allowed keys in 'llm': base_url",
        ),
        (["colour=red"], {}, "unknown setting 'colour'"),
        (["max_input_length=lots"], {}, "invalid setting 'max_input_length' (got 'lots')"),
        (["memory_compact_ratio=1.5"], {}, "invalid setting 'memory_compact_ratio'"),
        (["language=fr"], {}, "invalid setting 'language' (got 'fr'): Input should be '' or 'zh'"),
        (["tools.approval=sometimes"], {}, "invalid setting 'tools.approval'"),
        (["config=nope"], {}, "unknown config 'nope'"),
        (["config=bad"], {"bad.yaml": "llm: [unclosed\n"}, "malformed YAML in"),
        (["config=list"], {"list.yaml": "- a\n- b\n"}, "must be a mapping of settings"),
        (
            ["config=typo"],
            {"typo.yaml": "llm:\n  temprature: 0.2\n"},
            "unknown setting 'llm.temprature' (in ",
        ),
        (["justaword"], {}, "is not key=value"),
        (["llm.model_name.x=1"], {}, "unknown setting 'llm.model_name.x'"),
        (
            ["config=tabbed"],
            {"tabbed.yaml": "llm:\n\tmodel_name: x\n"},
            "tabbed.yaml:2: a tab character (column 1); YAML indents with spaces only, "
            "replace the tab with spaces",
        ),
        (
            ["llm.base_url=localhost:18431"],
            {},
            "invalid setting 'llm.base_url' (got 'localhost:18431'): needs http:// or https:// "
            "in front: write http://localhost:18431/v1",
        ),
        (
            ["search.embedding.base_url=10.0.0.2:8080/v1/"],
            {},
            "write http://10.0.0.2:8080/v1 (https:// for a remote server)",
        ),
    ],
)
def test_bad_config_is_one_clear_line(tmp_path: Path, args, files, expected) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as info:
        load(args, cwd=tmp_path)
    message = str(info.value)
    assert expected in message
    assert "\n" not in message


def test_unknown_config_lists_packaged_names(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="packaged configs are: .*cli"):
        load(["config=nope"], cwd=tmp_path)


def test_cli_prints_one_line_and_exit_2_on_bad_config(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "remecli", "config=cli", "llm.modle=x"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("remecli: unknown setting 'llm.modle'")


def test_help_and_version_do_not_import_agentscope() -> None:
    code = (
        "import sys; from remecli.__main__ import main; main(['--help']); main(['--version']);"
        "print('AGENTSCOPE' if 'agentscope' in sys.modules else 'CLEAN')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "usage: remecli" in proc.stdout and "remecli 0." in proc.stdout
    assert proc.stdout.strip().endswith("CLEAN")


def test_text_settings_keep_the_text_as_typed(tmp_path: Path) -> None:
    s = load(
        ["llm.api_key=123456", "resume=20260101", "prompt=[draft] fix {x}", "llm.model_name=true"],
        cwd=tmp_path,
    )
    assert s.llm.api_key == "123456" and s.resume == "20260101"
    assert s.prompt == "[draft] fix {x}" and s.llm.model_name == "true"
    assert load(["resume=null"], cwd=tmp_path).resume is None


def test_commented_out_section_and_empty_env(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("llm:\n  # model_name: x\ntools:\n")
    assert load(["config=c"], cwd=tmp_path).llm.model_name == "gpt-4o-mini"
    (tmp_path / ".env").write_text("REME_LLM_API_KEY=sk-from-dotenv\n")
    assert load(env={"REME_LLM_API_KEY": ""}, cwd=tmp_path).llm.api_key == "sk-from-dotenv"


def test_unknown_token_encoding_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="memory.token_encoding"):
        load(["memory.token_encoding=bogus"], cwd=tmp_path)


def test_dash_p_keeps_the_question_verbatim() -> None:
    from remecli.cli import remecli

    for question in ("none", "42", "[draft] x", '{"a": 1}', "x=1?"):
        inv = remecli.make_context("remecli", ["config=cli", "-p", question]).params
        assert inv["prompt"] == question and inv["setting_args"] == ["config=cli"]


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_config_files_are_parsed_by_libyaml() -> None:
    """libyaml parses ~10x faster than PyYAML's Python parser; configs are read at every start."""
    from remecli.config.loader import SafeLoader

    assert issubclass(SafeLoader, yaml.CSafeLoader)
