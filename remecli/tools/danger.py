"""Which tool calls can destroy or leak: a pure classifier used by the approval policy.

A heuristic, not a sandbox: it reads the command the way a careful reviewer would (tokens,
pipes, redirections, `sh -c` bodies) and names the first risk it finds.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from remecli.tools.context import ToolContext


@dataclass(frozen=True)
class Danger:
    """A risk found in a call: `kind` groups similar risks, `reason` is for the user."""

    kind: str
    reason: str


_SEPARATORS = {";", "&&", "||", "|", "|&", "&", "(", ")", ";;", "{", "}"}
_WRAPPERS = {"env", "nice", "nohup", "time", "command", "exec", "builtin", "xargs", "stdbuf"}
_SUPERUSER = {"sudo", "doas", "su", "pkexec", "run0"}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "busybox"}
_INTERPRETERS = _SHELLS | {"python", "python3", "perl", "ruby", "node"}
_DISK_TOOLS = {"mkfs", "fdisk", "sfdisk", "parted", "wipefs", "shred", "mkswap", "blkdiscard"}
_POWER = {"shutdown", "reboot", "halt", "poweroff"}
_SAFE_DEVICES = re.compile(r"^/dev/(null|zero|stdout|stderr|stdin|tty|fd/\d+)$")
_DISK_DEVICE = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-)")
_FORK_BOMB = re.compile(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:")
_UPLOAD_FILE_FLAGS = {"-T", "--upload-file", "--post-file"}
_DATA_FLAGS = {"-d", "--data", "--data-binary", "--data-urlencode", "-F", "--form", "--post-data"}
# Commands whose every non-flag argument is a path they modify.
_MODIFY_ALL = {"rm", "rmdir", "mv", "touch", "mkdir", "truncate", "tee", "unlink", "shred"}
# Commands whose last argument is the path they write.
_MODIFY_LAST = {"cp", "ln", "install", "rsync"}
_EXEC_DELETE = re.compile(
    r"\b(shutil\.rmtree|os\.(remove|unlink|rmdir|removedirs)|\.unlink\(|\.rmdir\()"
)
_EXEC_SHELL = re.compile(r"\b(os\.system|os\.popen|subprocess\.\w+)\s*\(")
_STRING_LITERAL = re.compile(r"(?:'''|\"\"\"|'|\")(.*?)(?:'''|\"\"\"|'|\")", re.S)


def classify(tool_name: str, args: Mapping[str, Any], ctx: ToolContext) -> Danger | None:
    """The first risk in a tool call, or None when it looks safe."""
    if tool_name == "bash":
        return classify_command(str(args.get("command") or ""), ctx)
    if tool_name in ("write", "edit"):
        path = str(args.get("path") or "")
        if path and not _writable_without_asking(path, ctx):
            return Danger("outside-workspace", f"{tool_name} outside the workspace: {path}")
        return None
    if tool_name == "execute_code":
        return _classify_code(str(args.get("code") or ""), ctx)
    return None


def danger_reason(tool_name: str, args: Mapping[str, Any], ctx: ToolContext) -> str | None:
    """Why a call needs the user's approval in `dangerous` mode, or None when it does not."""
    found = classify(tool_name, args, ctx)
    return found.reason if found else None


def classify_command(command: str, ctx: ToolContext, depth: int = 0) -> Danger | None:
    """The first risk in a shell command line (relative paths follow `cd`s along the line)."""
    if _FORK_BOMB.search(command):
        return Danger("fork-bomb", "a fork bomb")
    segments = _segments(command)
    base = str(ctx.workspace)
    for index, (separator, tokens) in enumerate(segments):
        program, args, _ = _program(tokens)
        if program in ("cd", "pushd"):
            target = next((arg for arg in args if not arg.startswith("-")), "~")
            base = os.path.join(base, os.path.expandvars(os.path.expanduser(target)))
            continue
        found = _classify_simple(tokens, ctx, depth, base)
        if found:
            return found
        if separator in ("|", "|&") and index > 0:
            previous = _program(segments[index - 1][1])[0]
            program = _program(tokens)[0]
            if previous in ("curl", "wget", "fetch") and program in _INTERPRETERS:
                return Danger("pipe-to-shell", f"pipes a download into {program}")
    if re.search(r"(<\(|\$\(|`)\s*(curl|wget)\b", command) and re.search(
        r"\b(ba|z|da|k)?sh\b|\bsource\b|\beval\b", command
    ):
        return Danger("pipe-to-shell", "runs a downloaded script")
    return None


def _segments(command: str) -> list[tuple[str, list[str]]]:
    """Split a command line into simple commands, each with the separator before it."""
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to a rough split
        tokens = re.findall(r"[;&|()<>]+|[^\s;&|()<>]+", command)
    segments: list[tuple[str, list[str]]] = []
    separator, current = "", []
    for token in tokens:
        if token in _SEPARATORS:
            if current:
                segments.append((separator, current))
            separator, current = token, []
        elif token == "$" and current == []:
            continue
        else:
            current.append(token)
    if current:
        segments.append((separator, current))
    return segments


def _program(tokens: list[str]) -> tuple[str, list[str], bool]:
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


def _split_redirections(args: list[str]) -> tuple[list[str], list[str]]:
    """(plain arguments, redirection targets written to)."""
    plain, targets = [], []
    skip = False
    for index, token in enumerate(args):
        if skip:
            skip = False
            continue
        if ">" in token and set(token) <= set("<>&|"):
            target = args[index + 1] if index + 1 < len(args) else ""
            skip = True
            if target and not (token.endswith("&") and target.isdigit()):
                targets.append(target)
        elif "<" in token and set(token) <= set("<>&|"):
            skip = True
        else:
            plain.append(token)
    return plain, targets


def _classify_simple(tokens: list[str], ctx: ToolContext, depth: int, base: str) -> Danger | None:
    program, raw_args, superuser = _program(tokens)
    args, written = _split_redirections(raw_args)
    if superuser:
        return Danger("superuser", "runs a command as superuser (sudo)")
    for target in written:
        if _DISK_DEVICE.match(target):
            return Danger("disk-write", f"writes to the disk device {target}")
        if not _writable_without_asking(target, ctx, base):
            return Danger("outside-workspace", f"writes outside the workspace: {target}")
    if not program:
        return None
    flags = [arg for arg in args if arg.startswith("-")]
    operands = [arg for arg in args if not arg.startswith("-")]
    short = "".join(flag[1:] for flag in flags if not flag.startswith("--"))
    if program in _SHELLS and "-c" in flags and depth < 3:
        body = args[args.index("-c") + 1] if args.index("-c") + 1 < len(args) else ""
        return classify_command(body, ctx, depth + 1)
    if program == "eval" and depth < 3:
        return classify_command(" ".join(args), ctx, depth + 1)
    if program == "rm" and ("r" in short or "R" in short or "--recursive" in flags):
        return Danger("recursive-delete", f"deletes recursively: rm {' '.join(args)}")
    if program == "find" and ("-delete" in args or _finds_and_removes(args)):
        return Danger("recursive-delete", "deletes the files find matches")
    if program == "git":
        return _classify_git(args)
    if program == "dd":
        return Danger("disk-write", "dd writes raw blocks")
    if program in _DISK_TOOLS or program.startswith("mkfs"):
        return Danger("disk-format", f"{program} can erase a disk")
    if program in ("chmod", "chown", "chgrp") and ("R" in short or "--recursive" in flags):
        return Danger("recursive-permissions", f"changes permissions recursively: {program}")
    if program in _POWER:
        return Danger("power", f"{program} stops the machine")
    if program in ("curl", "wget") and _uploads(args):
        return Danger("upload", f"{program} uploads data")
    if program in ("scp", "sftp", "rsync") and any(_is_remote(arg) for arg in operands):
        return Danger("upload", f"{program} copies files to or from another machine")
    modified = (
        operands if program in _MODIFY_ALL else operands[-1:] if program in _MODIFY_LAST else []
    )
    if program in ("chmod", "chown", "chgrp"):
        modified = operands[1:]
    for path in modified:
        if not _writable_without_asking(path, ctx, base):
            return Danger(
                "outside-workspace", f"{program} changes files outside the workspace: {path}"
            )
    return None


def _classify_git(args: list[str]) -> Danger | None:
    sub = next((arg for arg in args if not arg.startswith("-")), "")
    rest = args[args.index(sub) + 1 :] if sub else []
    short = "".join(arg[1:] for arg in rest if arg.startswith("-") and not arg.startswith("--"))
    if sub == "push" and (
        "f" in short
        or any(arg.startswith(("--force", "--mirror", "--delete")) for arg in rest)
        or any(arg.startswith("+") or arg.startswith(":") for arg in rest)
    ):
        return Danger("git-history", "force-pushes or deletes remote history (git push --force)")
    if sub == "reset" and "--hard" in rest:
        return Danger("git-discard", "discards uncommitted changes (git reset --hard)")
    if sub == "clean" and ("f" in short or "--force" in rest):
        return Danger("git-discard", "deletes untracked files (git clean -f)")
    if sub in ("checkout", "restore") and "." in rest:
        return Danger("git-discard", f"discards uncommitted changes (git {sub} .)")
    return None


def _finds_and_removes(args: list[str]) -> bool:
    return any(
        arg in ("-exec", "-execdir", "-ok")
        and index + 1 < len(args)
        and os.path.basename(args[index + 1]) in ("rm", "shred", "unlink")
        for index, arg in enumerate(args)
    )


def _is_remote(arg: str) -> bool:
    return bool(re.match(r"^([\w.-]+@)?[\w.-]+:", arg)) and not re.match(r"^[A-Za-z]:\\", arg)


def _writable_without_asking(path: str, ctx: ToolContext, base: str = "") -> bool:
    """Inside the workspace, remecli's working folder, a scratch folder, or a harmless device.

    A relative `path` is taken from `base` (the shell's folder), else from the workspace.
    """
    expanded = os.path.join(base, os.path.expandvars(os.path.expanduser(path)))
    if _SAFE_DEVICES.match(expanded):
        return True
    if expanded.startswith("/dev/"):
        return False
    return ctx.is_inside_workspace(expanded) or ctx.is_scratch(expanded)


def _uploads(args: list[str]) -> bool:
    """curl/wget arguments that send a local file or data away."""
    for index, arg in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else ""
        if arg in _UPLOAD_FILE_FLAGS or arg.startswith(("--upload-file=", "--post-file=")):
            return True
        if arg in _DATA_FLAGS and (following.startswith(("@", "<")) or "=@" in following):
            return True
        if re.match(r"^(-d|-F|--data[\w-]*=|--form=)([@<]|\S*=@)", arg):
            return True
    return False


def _classify_code(code: str, ctx: ToolContext) -> Danger | None:
    """Python code: file deletion, or shell commands (as string literals) that are dangerous."""
    if _EXEC_DELETE.search(code):
        return Danger("code-delete", "the program deletes files or folders")
    if _EXEC_SHELL.search(code):
        for literal in _STRING_LITERAL.findall(code):
            found = classify_command(literal, ctx, depth=1)
            if found:
                return Danger(found.kind, f"the program runs a shell command that {found.reason}")
    return None
