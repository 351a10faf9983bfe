"""Split remecli's command line into a front-end choice and `key=value` settings (no imports)."""

from __future__ import annotations

from dataclasses import dataclass, field

USAGE = """\
usage: remecli [config=NAME[,NAME…]] [key=value …] [-p QUESTION | -p -]
       remecli sessions [--json] [config=…] [key=value …]
       remecli search "QUERY" [--json] [--max N] [config=…] [key=value …]
       remecli reindex [config=…] [key=value …]

A terminal assistant with long-term memory kept as Markdown files you own.

  remecli config=cli                 open the chat (Textual TUI)
  remecli config=cli ui=plain        line-mode REPL for dumb terminals, SSH, screen readers
  remecli config=cli -p "question"   answer once, print to stdout, exit (also prompt="…")
  cat q.txt | remecli config=cli -p -  the same, the question read from stdin
  remecli sessions [--json]          list saved conversations (id, start, last activity, …)
  remecli config=cli resume=last     continue the last conversation (or resume=<session id>)
  remecli search "deploy" --json     search MEMORY.md and memory/*.md
  remecli reindex                    rebuild the search index from the Markdown files

Settings: config=a,b merges YAML files in order (a name is looked up in the packaged config
folder, then the current directory; a path works too). Any setting can be overridden as
key=value or dotted (llm.model_name=gpt-4o, tools.approval=never). Precedence:
defaults < YAML files in order < environment (.env too) < key=value.

Environment: REME_LLM_API_KEY, REME_LLM_BASE_URL, REME_LLM_MODEL, REME_EMBEDDING_API_KEY,
REME_EMBEDDING_BASE_URL, REME_EMBEDDING_MODEL, REME_WORKING_DIR, TAVILY_API_KEY.

Options: -h/--help  this text   -V/--version  print the version
"""


@dataclass
class Invocation:
    """What the user asked for on the command line."""

    command: str = "chat"  # chat | search | reindex | sessions | help | version
    settings_args: list[str] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)
    prompt: str | None = None  # -p QUESTION, kept exactly as typed ("-": read it from stdin)
    json: bool = False  # sessions --json


def parse_argv(argv: list[str]) -> Invocation:
    """Parse argv without touching settings files or heavy imports."""
    if any(a in ("-h", "--help") for a in argv):
        return Invocation("help")
    if any(a in ("-V", "--version") for a in argv):
        return Invocation("version")
    if argv and argv[0] in ("search", "reindex"):
        return Invocation(argv[0], rest=argv[1:])
    inv = Invocation()
    if argv and argv[0] == "sessions":
        inv.command = "sessions"
        inv.json = "--json" in argv[1:]
        inv.settings_args = [a for a in argv[1:] if a != "--json"]
        return inv
    args = iter(argv)
    for arg in args:
        if arg in ("-p", "--prompt"):
            question = next(args, None)
            if question is None:
                raise ValueError(
                    '-p needs a question, e.g. remecli config=cli -p "what is in MEMORY.md?" '
                    "(or -p - to read it from stdin)"
                )
            inv.prompt = question
        else:
            inv.settings_args.append(arg)
    return inv
