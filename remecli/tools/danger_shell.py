"""Reading shell command lines for the danger classifier: no policy, only parsing.

Splits a line into simple commands, skips wrappers (`env`, `sudo`, `timeout`…), separates
redirections, finds command substitutions (`$(…)`, backticks) and here-documents, and reads
the options of interpreters (`python -c`, `perl -e`, `bash -c`…).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

_SEPARATORS = {";", "&&", "||", "|", "|&", "&", "(", ")", ";;", "{", "}"}
_WRAPPERS = {"env", "nice", "nohup", "time", "command", "exec", "builtin", "xargs", "stdbuf"}
_SUPERUSER = {"sudo", "doas", "su", "pkexec", "run0"}
_HEREDOC = re.compile(r"(?<!<)<<(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
HEREDOC_MARK = "__remecli_heredoc_"
# Interpreter -> (short option letters that take the code, options that take a separate value).
_CODE_OPTIONS: dict[str, tuple[str, set[str]]] = {
    "shell": ("c", {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}),
    "python": ("c", {"-W", "-X", "--check-hash-based-pycs"}),
    "perl": ("eE", set()),
    "ruby": ("e", {"-r", "-I", "-C", "-E"}),
    "node": ("ep", {"-r", "--require", "--import", "--loader"}),
    "php": ("r", {"-c", "-d", "-z"}),
}
_LONG_CODE_OPTIONS = {"--eval", "--print", "--command"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox"}


def segments(command: str) -> list[tuple[str, list[str]]]:
    """Split a command line into simple commands, each with the separator before it."""
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to a rough split
        tokens = re.findall(r"[;&|()<>]+|[^\s;&|()<>]+", command)
    found: list[tuple[str, list[str]]] = []
    separator, current = "", list[str]()
    for token in tokens:
        if token in _SEPARATORS:
            if current:
                found.append((separator, current))
            separator, current = token, []
        elif token == "$" and current == []:
            continue
        else:
            current.append(token)
    if current:
        found.append((separator, current))
    return found


def program_of(tokens: list[str]) -> tuple[str, list[str], bool]:
    """(program name, its arguments, whether it runs as superuser), wrappers skipped."""
    superuser = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        name = os.path.basename(token)
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", token):  # VAR=value prefix
            index += 1
        elif name in _SUPERUSER:
            superuser = True
            index += 1
            while index < len(tokens) and tokens[index].startswith("-"):
                index += 1
        elif name in _WRAPPERS or name == "timeout":
            index += 1
            while index < len(tokens) and (
                tokens[index].startswith("-") or (name == "timeout" and tokens[index][0].isdigit())
            ):
                index += 1
        else:
            return name, tokens[index + 1 :], superuser
    return "", [], superuser


@dataclass
class Redirections:
    """A simple command's arguments with its redirections taken out."""

    plain: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    stdin_text: str | None = None


def split_redirections(args: list[str], heredocs: dict[str, str]) -> Redirections:
    """Separate `> file`, `< file`, here-documents and here-strings from plain arguments."""
    result = Redirections()
    skip = False
    for index, token in enumerate(args):
        if skip:
            skip = False
            continue
        following = args[index + 1] if index + 1 < len(args) else ""
        if not (token and set(token) <= set("<>&|")) or token in ("&", "|", "&&", "||"):
            result.plain.append(token)
            continue
        skip = True
        if ">" in token:
            if following and not (token.endswith("&") and following.isdigit()):
                result.written.append(following)
        elif token == "<<":
            result.stdin_text = heredocs.get(following, "")
        elif token == "<<<":
            result.stdin_text = following
        else:
            result.read.append(following)
    return result


def cut_heredocs(command: str) -> tuple[str, dict[str, str]]:
    """The command with here-document bodies cut out, and the bodies by placeholder name.

    `cat > notes.md <<EOF … EOF` keeps `<< __remecli_heredoc_0` in the line, so the body is
    data for its command, not more commands.
    """
    bodies: dict[str, str] = {}
    pending: list[tuple[str, str, bool]] = []
    kept: list[str] = []

    def mark(match: re.Match[str]) -> str:
        name = f"{HEREDOC_MARK}{len(bodies)}"
        bodies[name] = ""
        pending.append((name, match.group(3), match.group(1) == "-"))
        return f"<< {name}"

    for line in command.split("\n"):
        if pending:
            name, delimiter, strip_tabs = pending[0]
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                pending.pop(0)
            else:
                bodies[name] += line + "\n"
            continue
        kept.append(_HEREDOC.sub(mark, line) if "<<" in line else line)
    return "\n".join(kept), bodies


def substitutions(command: str) -> list[str]:
    """Bodies of `$(…)` and backtick command substitutions the shell would run.

    Text in single quotes is not run, so it is skipped; backslash escapes are honoured.
    """
    found: list[str] = []
    index, quote = 0, ""
    while index < len(command):
        char = command[index]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            index += 1
        elif char == "'" and not quote:
            quote = "'"
        elif char == '"':
            quote = "" if quote == '"' else '"'
        elif char == "`":
            end = command.find("`", index + 1)
            end = len(command) if end < 0 else end
            found.append(command[index + 1 : end])
            index = end
        elif command.startswith("$(", index):
            depth, start = 0, index + 2
            while index < len(command):
                depth += {"(": 1, ")": -1}.get(command[index], 0)
                if depth == 0 and command[index] == ")":
                    break
                index += 1
            found.append(command[start:index])
        index += 1
    return found


def language_of(program: str) -> str | None:
    """The language an interpreter runs ("shell", "python", "perl"…), or None."""
    if program in SHELLS:
        return "shell"
    if re.match(r"^(python[\d.]*|pypy[\d.]*)$", program):
        return "python"
    if program in ("perl", "ruby", "php"):
        return program
    if program in ("node", "nodejs"):
        return "node"
    return None


@dataclass
class InlineCode:
    """Code given on an interpreter's command line, and the files after it."""

    code: str
    operands: list[str]
    in_place: bool


def inline_code(language: str, args: list[str]) -> InlineCode | None:
    """The `-c`/`-e`/`-r` body of an interpreter call, or None when it runs a script file."""
    letters, value_options = _CODE_OPTIONS[language]
    bodies: list[str] = []
    operands: list[str] = []
    in_place = False
    index = 0
    while index < len(args):
        arg = args[index]
        following = args[index + 1] if index + 1 < len(args) else ""
        if arg in value_options:
            index += 2
            continue
        if arg in _LONG_CODE_OPTIONS and language in ("node", "shell"):
            bodies.append(following)
            index += 2
            continue
        if arg.startswith("--eval=") and language == "node":
            bodies.append(arg.split("=", 1)[1])
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            group = arg[1:]
            in_place = in_place or (language in ("perl", "ruby") and "i" in group)
            if group[-1] in letters:
                bodies.append(following)
                index += 2
                continue
        elif not bodies:
            return None  # a script file: its code is not on the command line
        elif language != "shell":
            operands.append(arg)
        index += 1
    if not bodies:
        return None
    return InlineCode("\n".join(bodies), operands, in_place)


def option_values(args: list[str], short: str, long: Iterable[str], takes_value: str) -> list[str]:
    """Values of an option given as `-o X`, `-oX`, `-so X`, `--output X` or `--output=X`.

    `takes_value` lists the program's short options that take a value, so `-XPOST` is read
    as `-X POST`, not as a bundle containing `-O`.
    """
    values: list[str] = []
    long = tuple(long)
    for index, arg in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else ""
        if arg in long:
            values.append(following)
        elif arg.startswith(tuple(name + "=" for name in long)):
            values.append(arg.split("=", 1)[1])
        elif arg.startswith("-") and not arg.startswith("--"):
            for position, letter in enumerate(arg[1:], start=1):
                if letter == short:
                    values.append(arg[position + 1 :] or following)
                if letter in takes_value:
                    break
    return values


def is_remote(arg: str) -> bool:
    """`host:path`, `user@host:path` or `rsync://…`: an operand on another machine."""
    return bool(re.match(r"^([\w.-]+@)?[\w.-]+:", arg)) and not re.match(r"^[A-Za-z]:\\", arg)


def git_subcommand(args: list[str]) -> tuple[str, list[str]]:
    """(subcommand, its arguments) after git's global options (`-C dir`, `-c k=v`…)."""
    with_value = {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--list-cmds",
    }
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in with_value:
            index += 2
        elif arg.startswith("-"):
            index += 1
        else:
            return arg, args[index + 1 :]
    return "", []


def sed_in_place_files(args: list[str]) -> list[str]:
    """Files `sed -i` rewrites (none without -i/--in-place)."""
    in_place, script_given, operands = False, False, []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-e", "--expression", "-f", "--file"):
            script_given = skip = True
        elif arg.startswith(("--expression=", "--file=")):
            script_given = True
        elif arg.startswith("--in-place"):
            in_place = True
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            for position, letter in enumerate(arg[1:], start=1):
                if letter == "i":
                    in_place = True
                    break  # the rest is the backup suffix
                if letter in "ef":
                    script_given = True
                    skip = position == len(arg) - 1
                    break
        elif not arg.startswith("--"):
            operands.append(arg)
    if not in_place:
        return []
    return operands if script_given else operands[1:]


def tar_written(args: list[str]) -> list[str]:
    """Where tar writes: the folder it extracts into, or the archive it creates."""
    if not args:
        return []
    bundle = args[0].lstrip("-") if not args[0].startswith("--") else ""
    short = bundle + "".join(a[1:] for a in args[1:] if a.startswith("-") and a[1:2] != "-")
    if "x" in short or any(arg.startswith(("--extract", "--get")) for arg in args):
        return option_values(args, "C", ["--directory"], "CfbHKLNTVgX") or ["."]
    if any(letter in short for letter in "cru") or any(
        arg.startswith(("--create", "--append", "--update")) for arg in args
    ):
        archives = option_values(args, "f", ["--file"], "fCbHKLNTVgX")
        if bundle and not args[0].startswith("-") and "f" in bundle and len(args) > 1:
            archives.append(args[1])
        return [archive for archive in archives if archive not in ("", "-")]
    return []
