"""Settings never change in place: a change is a validated copy (`with_changes`)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from remecli.config import Settings
from remecli.config.search import EmbeddingSettings


def test_no_setting_can_be_assigned() -> None:
    settings = Settings()
    with pytest.raises(ValidationError, match="frozen"):
        settings.language = "zh"
    with pytest.raises(ValidationError, match="frozen"):
        settings.memory.dream.auto = False
    with pytest.raises(ValidationError, match="frozen"):
        settings.search.embedding.backend = "none"


def test_with_changes_is_a_copy_reaching_into_sections() -> None:
    before = Settings()
    after = before.with_changes(
        {"language": "zh", "memory.retention_days": 3, "search.embedding.backend": "none"}
    )
    assert (after.language, after.memory.retention_days) == ("zh", 3)
    assert after.search.embedding.backend == "none"
    assert after.llm == before.llm and after.memory.dream == before.memory.dream
    assert before.language == "" and before.memory.retention_days == 7
    assert before.search.embedding.backend == "auto"


def test_with_changes_validates_like_the_loader() -> None:
    with pytest.raises(ValidationError, match="language"):
        Settings().with_changes({"language": "fr"})
    with pytest.raises(ValidationError, match="retention_days"):
        Settings().with_changes({"memory.retention_days": -1})
    with pytest.raises(ValidationError, match="bash_timeout must not exceed"):
        Settings().with_changes({"tools.bash_timeout": 900})
    with pytest.raises(ValidationError, match="extra"):
        Settings().with_changes({"memory.no_such_key": 1})


def test_with_changes_names_a_key_that_is_not_a_section() -> None:
    with pytest.raises(ValueError, match="'language' is not a settings section"):
        Settings().with_changes({"language.x": 1})
    with pytest.raises(ValueError, match="'nope' is not a settings section"):
        Settings().with_changes({"nope.x": 1})


def test_a_section_changes_alone() -> None:
    assert EmbeddingSettings().with_changes({"dimensions": 32}).dimensions == 32
