"""Split remecli's command line into a front-end choice and `key=value` settings (no imports)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Subcommand:
    """One `remecli NAME …` command: where its runner lives (imported only when used)."""

    name: str
    runner: str  # "module:function", called with the arguments after NAME
    synopsis: str  # the usage line after `remecli `
    example: str  # one example line for the help text: (command, what it does)
    what: str
    with_name: bool = False  # the runner also gets NAME first (one runner, several names)


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(
        "sessions",
        "remecli.surfaces.cli.sessions:run",
        "sessions [--json] [config=…]",
        "remecli sessions",
        "saved conversations (id, start, last activity, first line)",
    ),
    Subcommand(
        "search",
        "remecli.surfaces.cli.search:run",
        'search "QUERY" [--json] [--max N] [--source notes|transcripts|all] [config=…]',
        'remecli search "deploy" --json',
        "search notes and past conversations",
        with_name=True,
    ),
    Subcommand(
        "reindex",
        "remecli.surfaces.cli.search:run",
        "reindex [config=…] [key=value …]",
        "remecli reindex",
        "rebuild the derived index from the Markdown files",
        with_name=True,
    ),
    Subcommand(
        "links",
        "remecli.surfaces.cli.links:run",
        "links PATH [--json] [--depth N] [--direction in|out|both]",
        "remecli links MEMORY.md --json",
        "what a note links to and what links to it",
    ),
    Subcommand(
        "memory",
        "remecli.surfaces.cli.history:run",
        "memory history PATH [--json] | memory restore PATH VERSION",
        "remecli memory history MEMORY.md",
        "earlier versions of a memory file",
    ),
    Subcommand(
        "dream",
        "remecli.surfaces.cli.dream:run",
        "dream [date=YYYY-MM-DD] [config=…]",
        "remecli dream",
        "consolidate new topic cards into the digest (Auto Dream)",
    ),
    Subcommand(
        "ingest",
        "remecli.surfaces.cli.resources:run",
        "ingest [PATH …] | ingest --prune [--yes]",
        "remecli ingest ~/notes/plan.md",
        "turn files into source-linked cards (copied into resource/)",
    ),
    Subcommand(
        "memories",
        "remecli.surfaces.cli.vector:run",
        "memories list|add|get|update|delete|search [--user U|--task T|--tool N] [--json]",
        "remecli memories list --user alice",
        "vector memory: personal, task and tool memories",
    ),
    Subcommand(
        "job",
        "remecli.surfaces.commands:run_command",
        "job NAME [--param value …]",
        "remecli job memory_read --path MEMORY.md",
        "run one memory job (remecli job: the list)",
        with_name=True,
    ),
    Subcommand(
        "mcp",
        "remecli.surfaces.commands:run_command",
        "mcp [--http --port P]",
        "remecli mcp",
        "the memory jobs as an MCP server (stdio)",
        with_name=True,
    ),
    Subcommand(
        "serve",
        "remecli.surfaces.commands:run_command",
        "serve [--host 127.0.0.1] [--port P] [--read-only]",
        "remecli serve",
        "HTTP JSON API (bearer token, /api/docs)",
        with_name=True,
    ),
)
BY_NAME = {sub.name: sub for sub in SUBCOMMANDS}


def _usage() -> str:
    synopses = "".join(f"       remecli {sub.synopsis}\n" for sub in SUBCOMMANDS)
    examples = "".join(f"  {sub.example:<42} {sub.what}\n" for sub in SUBCOMMANDS)
    return f"""\
usage: remecli [config=NAME[,NAME…]] [key=value …] [-p QUESTION | -p -]
{synopses}
A terminal assistant with long-term memory kept as Markdown files you own.

  remecli config=cli                         open the chat (Textual TUI)
  remecli config=cli ui=plain                line-mode REPL for dumb terminals, SSH, screen readers
  remecli config=cli -p "question"           answer once, print to stdout, exit (also prompt="…")
  cat q.txt | remecli config=cli -p -        the same, the question read from stdin
  remecli config=cli resume=last             continue the last conversation (or resume=<id>)
{examples}
Settings: config=a,b merges YAML files in order (a name is looked up in the packaged config
folder, then the current directory; a path works too). Any setting can be overridden as
key=value or dotted (llm.model_name=gpt-4o, tools.approval=never). Precedence:
defaults < YAML files in order < environment (.env too) < key=value.

Environment: REME_LLM_API_KEY, REME_LLM_BASE_URL, REME_LLM_MODEL, REME_EMBEDDING_API_KEY,
REME_EMBEDDING_BASE_URL, REME_EMBEDDING_MODEL, REME_WORKING_DIR, TAVILY_API_KEY.

Options: -h/--help  this text   -V/--version  print the version
"""


USAGE = _usage()


@dataclass
class Invocation:
    """What the user asked for on the command line."""

    command: str = "chat"  # chat | help | version | a subcommand's name
    settings_args: list[str] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)
    prompt: str | None = None  # -p QUESTION, kept exactly as typed ("-": read it from stdin)


def parse_argv(argv: list[str]) -> Invocation:
    """Parse argv without touching settings files or heavy imports."""
    if argv and argv[0] in BY_NAME:  # a subcommand parses (and explains) its own arguments
        return Invocation(argv[0], rest=argv[1:])
    if any(a in ("-h", "--help") for a in argv):
        return Invocation("help")
    if any(a in ("-V", "--version") for a in argv):
        return Invocation("version")
    inv = Invocation()
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
