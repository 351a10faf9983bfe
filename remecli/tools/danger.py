"""Which tool calls can destroy or leak: a pure classifier used by the approval policy.

A heuristic, not a sandbox: it reads the command the way a careful reviewer would (tokens,
pipes, redirections, `sh -c` bodies, `$(…)`/backticks, `python -c` one-liners, here-documents)
and names the first risk it finds. Parsing lives in `danger_shell`; the rules live here.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

from remecli.tools import danger_shell as sh
from remecli.tools.context import ToolContext
from remecli.tools.danger_reads import read_danger, secret_in_command
from remecli.tools.danger_system import indirect_command, shell_rejects, system_danger
from remecli.tools.danger_types import Danger
from remecli.tools.file_reach import file_reach

__all__ = ["Danger", "classify", "classify_code", "classify_command", "danger_reason"]


_MAX_DEPTH = 3
_DOWNLOADERS = {"curl", "wget", "fetch"}
_DISK_TOOLS = {"mkfs", "fdisk", "sfdisk", "parted", "wipefs", "shred", "mkswap", "blkdiscard"}
_POWER = {"shutdown", "reboot", "halt", "poweroff"}
_RAW_NETWORK = {"nc", "ncat", "netcat", "socat"}
_SAFE_DEVICES = re.compile(r"^/dev/(null|zero|stdout|stderr|stdin|tty|fd/\d+)$")
_DISK_DEVICE = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|md|dm-)")
_FORK_BOMB = re.compile(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:")
_UPLOAD_FILE_FLAGS = ("-T", "--upload-file", "--post-file", "--body-file")
_DATA_FLAGS = {
    "-d",
    "--data",
    "--data-binary",
    "--data-urlencode",
    "--data-raw",
    "--data-ascii",
    "--json",
    "-F",
    "--form",
    "--form-string",
    "--post-data",
    "--body-data",
}
# Short options of curl / wget that take a value (so `-XPOST` is not read as containing -O).
_CURL_VALUED = "AbcCdDeEFHKmoQrtTuUwxXyYzP"
_WGET_VALUED = "OPoaAeiBUtTwQlDRIX"
# Commands whose every non-flag argument is a path they modify.
_MODIFY_ALL = {"rm", "rmdir", "mv", "touch", "mkdir", "truncate", "tee", "unlink", "shred"}
# Commands whose last argument is the path they write.
_MODIFY_LAST = {"cp", "ln", "install", "rsync"}
_PY_DELETE = re.compile(
    r"\b(shutil\.rmtree|os\.(remove|unlink|rmdir|removedirs)|\.unlink\(|\.rmdir\()"
)
_PY_SHELL = re.compile(r"\b(os\.system|os\.popen|os\.exec\w*|pty\.spawn|subprocess\.\w+)\s*\(")
_PY_WRITES = (
    re.compile(
        r"""\bopen\(\s*[rbf]?['"](?P<path>[^'"]+)['"]\s*,\s*(mode\s*=\s*)?['"][^'"]*[wax+]"""
    ),
    re.compile(r"""\bPath\(\s*[rbf]?['"](?P<path>[^'"]+)['"]\s*\)\s*\.(write_|touch|mkdir)"""),
)
# Perl, Ruby, Node and PHP one-liners.
_OTHER_DELETE = re.compile(
    r"\b(unlink|unlinkSync|rmtree|remove_tree|rmdir|rmdirSync|rmSync|rm_rf|rm_r|rm_f"
    r"|remove_dir|remove_entry\w*)\b|\b(File|Dir)\.delete\b|\bfs(\.promises)?\.rm\s*\("
    r"|\bFileUtils\.rm\b"
)
_OTHER_SHELL = re.compile(
    r"\b(system|exec|execSync|execFileSync|spawn|spawnSync|popen|qx|shell_exec|passthru"
    r"|proc_open)\b|`|%x[({\[]"
)
_OTHER_WRITES = (
    re.compile(
        r"""\b(writeFileSync|appendFileSync|writeFile|appendFile|File\.write"""
        r"""|file_put_contents)\s*\(\s*['"](?P<path>[^'"]+)['"]"""
    ),
    re.compile(r"""\bopen\s*\(?[^,;]+,\s*['"]\+?>{1,2}\s*(['"]\s*,\s*['"])?(?P<path>[^'"]+)['"]"""),
)
_STRING_LITERAL = re.compile(r"(?:'''|\"\"\"|'|\"|`)(.*?)(?:'''|\"\"\"|'|\"|`)", re.S)


def classify(tool_name: str, args: Mapping[str, Any], ctx: ToolContext) -> Danger | None:
    """The first risk in a tool call, or None when it looks safe."""
    if tool_name == "bash":
        return classify_command(str(args.get("command") or ""), ctx)
    if tool_name in ("write", "edit"):
        return file_reach(tool_name, args, ctx)
    if tool_name == "execute_code":
        return classify_code(str(args.get("code") or ""), ctx)
    if tool_name in ("read", "ls"):
        return read_danger(tool_name, str(args.get("path") or ""), ctx)
    return None


def danger_reason(tool_name: str, args: Mapping[str, Any], ctx: ToolContext) -> str | None:
    """Why a call needs the user's approval in `dangerous` mode, or None when it does not."""
    found = classify(tool_name, args, ctx)
    return found.reason if found else None


def classify_command(command: str, ctx: ToolContext, depth: int = 0) -> Danger | None:
    """The first risk in a shell command line (relative paths follow `cd`s along the line)."""
    if _FORK_BOMB.search(command):
        return Danger("fork-bomb", "a fork bomb")
    command, heredocs = sh.cut_heredocs(command)
    found = _classify_line(command, heredocs, ctx, depth) or indirect_command(command)
    if found is None and depth == 0:
        return _unreadable(command) or secret_in_command(command)
    return found


def _unreadable(command: str) -> Danger | None:
    """A line the classifier cannot tokenize although the shell would run it: ask."""
    try:
        shlex.split(command)
    except ValueError:
        if not shell_rejects(command):
            return Danger("unparsed", "the command could not be read to check it")
    return None


def _classify_line(
    command: str, heredocs: dict[str, str], ctx: ToolContext, depth: int
) -> Danger | None:
    """The risks of a line whose here-documents are cut out."""
    if re.search(r"(<\(|\$\(|`)\s*(curl|wget)\b", command) and re.search(
        r"\b(ba|z|da|k)?sh\b|\bsource\b|\beval\b", command
    ):
        return Danger("pipe-to-shell", "runs a downloaded script")
    if depth < _MAX_DEPTH:
        for body in sh.substitutions(command):
            found = classify_command(body, ctx, depth + 1)
            if found:
                return found
    segments = sh.segments(command)
    base = str(ctx.workspace)
    for index, (separator, tokens) in enumerate(segments):
        program, args, _ = sh.program_of(tokens)
        if program in ("cd", "pushd"):
            target = next((arg for arg in args if not arg.startswith("-")), "~")
            base = os.path.join(base, os.path.expandvars(os.path.expanduser(target)))
            continue
        piped = separator in ("|", "|&") and index > 0
        found = _classify_simple(tokens, ctx, depth, base, heredocs)
        if found:
            return found
        previous = sh.program_of(segments[index - 1][1])[0] if piped else ""
        if previous in _DOWNLOADERS and _runs_stdin(program, args):
            return Danger("pipe-to-shell", f"pipes a download into {program}")
    return None


def _classify_simple(
    tokens: list[str], ctx: ToolContext, depth: int, base: str, heredocs: dict[str, str]
) -> Danger | None:
    program, raw_args, superuser = sh.program_of(tokens)
    redirections = sh.split_redirections(raw_args, heredocs)
    args = redirections.plain
    if superuser:
        return Danger("superuser", "runs a command as superuser (sudo)")
    found = system_danger(program, args)
    if found:
        return found
    for target in redirections.written:
        if _DISK_DEVICE.match(target):
            return Danger("disk-write", f"writes to the disk device {target}")
        if not _writable_without_asking(target, ctx, base):
            return Danger("outside-workspace", f"writes outside the workspace: {target}")
    if not program:
        return None
    language = sh.language_of(program)
    if language and depth < _MAX_DEPTH:
        return _classify_interpreter(program, language, args, redirections, ctx, depth, base)
    flags = [arg for arg in args if arg.startswith("-")]
    operands = [arg for arg in args if not arg.startswith("-")]
    short = "".join(flag[1:] for flag in flags if not flag.startswith("--"))
    if program == "eval" and depth < _MAX_DEPTH:
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
    if program in ("scp", "sftp", "rsync") and any(sh.is_remote(arg) for arg in operands):
        return Danger("upload", f"{program} copies files to or from another machine")
    if program in _RAW_NETWORK and "z" not in short:
        return Danger("upload", f"{program} sends data over a raw network connection")
    for path in _written_paths(program, args, operands, short):
        if not _writable_without_asking(path, ctx, base):
            return Danger(
                "outside-workspace", f"{program} changes files outside the workspace: {path}"
            )
    return None


def _classify_interpreter(
    program: str,
    language: str,
    args: list[str],
    redirections: sh.Redirections,
    ctx: ToolContext,
    depth: int,
    base: str,
) -> Danger | None:
    """`bash -c`, `python -c`, `perl -e`… and interpreters fed a here-document."""
    inline = sh.inline_code(language, args)
    if inline is None and redirections.stdin_text is not None and _runs_stdin(program, args):
        inline = sh.InlineCode(redirections.stdin_text, [], False)
    if inline is None:
        return None
    if inline.in_place:
        for path in inline.operands:
            if not _writable_without_asking(path, ctx, base):
                return Danger(
                    "outside-workspace", f"{program} -i edits outside the workspace: {path}"
                )
    if language == "shell":
        return classify_command(inline.code, ctx, depth + 1)
    return classify_code(inline.code, ctx, language, depth + 1)


def _runs_stdin(program: str, args: list[str]) -> bool:
    """True when an interpreter takes its program from stdin (`| sh`, `python3 -`)."""
    language = sh.language_of(program)
    if language is None or sh.inline_code(language, args) is not None:
        return False
    if language == "shell" and "-s" in args:
        return True  # `bash -s stable`: the words after -s are arguments, the code is stdin
    return "-m" not in args and all(arg.startswith("-") for arg in args)


def _written_paths(program: str, args: list[str], operands: list[str], short: str) -> list[str]:
    """The paths a file-writing command changes (empty for commands that write none)."""
    if program in _MODIFY_ALL:
        return operands
    if program in ("cp", "mv", "ln", "install"):
        targets = sh.option_values(args, "t", ["--target-directory"], "tSmogb")
        if targets:
            return targets
        if program == "install" and "d" in short:
            return operands
        return operands[-1:] if len(operands) > 1 or program != "ln" else ["."]
    if program in _MODIFY_LAST:
        return operands[-1:]
    if program in ("chmod", "chown", "chgrp"):
        return operands[1:]
    if program == "sed":
        return sh.sed_in_place_files(args)
    if program == "tar":
        return sh.tar_written(args)
    if program == "unzip" and "l" not in short:
        return sh.option_values(args, "d", [], "dx") or ["."]
    if program == "curl":
        return sh.option_values(args, "o", ["--output", "--output-dir"], _CURL_VALUED)
    if program == "wget":
        found = sh.option_values(args, "O", ["--output-document"], _WGET_VALUED)
        return found + sh.option_values(args, "P", ["--directory-prefix"], _WGET_VALUED)
    return []


def _classify_git(args: list[str]) -> Danger | None:
    sub, rest = sh.git_subcommand(args)
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
    """curl/wget arguments that send a local file, stdin or a command's output away."""
    for index, arg in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else ""
        if arg in _UPLOAD_FILE_FLAGS or arg.startswith(tuple(f + "=" for f in _UPLOAD_FILE_FLAGS)):
            return True
        value = following if arg in _DATA_FLAGS else ""
        match = re.match(r"^(-d|-F|--data[\w-]*=|--form=|--json=|--post-data=|--body-data=)", arg)
        if match and match.end() < len(arg):
            value = arg[match.end() :]
        if value and (value.startswith(("@", "<")) or "=@" in value or "=<" in value):
            return True
        if value and re.search(r"\$\(|`|^\$$|\$$", value):
            return True  # sends a command's output, e.g. --data "$(cat ~/.ssh/id_rsa)"
    return False


def classify_code(
    code: str, ctx: ToolContext, language: str = "python", depth: int = 1
) -> Danger | None:
    """Code run by execute_code or an interpreter one-liner: deletions, writes outside the
    workspace, and shell commands (as string literals) that are dangerous."""
    python = language == "python"
    if (_PY_DELETE if python else _OTHER_DELETE).search(code):
        return Danger("code-delete", "the program deletes files or folders")
    for pattern in _PY_WRITES if python else _OTHER_WRITES:
        for match in pattern.finditer(code):
            path = match.group("path")
            if not _writable_without_asking(path, ctx):
                return Danger(
                    "outside-workspace", f"the program writes outside the workspace: {path}"
                )
    if (_PY_SHELL if python else _OTHER_SHELL).search(code) and depth <= _MAX_DEPTH:
        for literal in _STRING_LITERAL.findall(code):
            found = classify_command(literal, ctx, depth)
            if found:
                return Danger(found.kind, f"the program runs a shell command that {found.reason}")
    return None
