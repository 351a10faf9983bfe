"""What a typed line is: a command, a message that starts with a slash, or a mistyped command."""

from __future__ import annotations

import pytest

from remecli.commands.typed_input import CommandCall, Message, UnknownCommand, read_input


def test_a_known_command_with_its_argument() -> None:
    typed = read_input("/compact  the deploy plan ")
    assert isinstance(typed, CommandCall)
    assert typed.command.name == "compact" and typed.arg == "the deploy plan"
    assert isinstance(read_input("/HELP"), CommandCall)


@pytest.mark.parametrize(
    "text",
    [
        "/srv/data is where I keep stuff",
        "/usr/bin/env python",
        "/tmp is full again",
        "/10 of them failed",
        "plain text",
    ],
)
def test_paths_and_text_go_to_the_model_unchanged(text: str) -> None:
    assert read_input(text) == Message(text)


def test_a_double_slash_sends_the_rest_literally() -> None:
    assert read_input("//help me with this") == Message("/help me with this")
    assert read_input("//srv") == Message("/srv")


def test_a_mistyped_command_is_unknown_and_the_nearest_is_suggested() -> None:
    typed = read_input("/hlep")
    assert isinstance(typed, UnknownCommand)
    assert typed.message.startswith("Unknown command '/hlep'. Did you mean /help?")
    assert "Type /help for details" in typed.message and "//" in typed.message
    near = read_input("/compcat deploy notes")
    assert isinstance(near, UnknownCommand) and "Did you mean /compact?" in near.message


def test_an_unknown_single_word_with_nothing_near_is_still_unknown() -> None:
    typed = read_input("/nope")
    assert isinstance(typed, UnknownCommand) and "Did you mean" not in typed.message
    assert "Unknown command '/nope'" in typed.message and "/compact" in typed.message
    assert isinstance(read_input("/"), UnknownCommand)
