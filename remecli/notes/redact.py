"""The one secrets redactor: API keys, tokens, private keys and passwords become `[REDACTED:<kind>]`.

Every writer of a memory file passes its text through `redact_secrets` (on by default,
`memory.redact_secrets`). Only the secret itself is replaced; the rest of the note (the label in
`password: …`, the words around a key) is kept, so the note still says a key existed. Patterns
are anchored on the formats providers publish (prefixes, lengths, structure) or on an explicit
label, never on "looks random", so ordinary hashes, ids, words and URLs survive. Redacting twice
changes nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

PLACEHOLDER = "[REDACTED:{kind}]"

# (kind, pattern); the whole match is replaced unless the pattern has a group named `secret`.
_TOKEN_PATTERNS: list[tuple[str, str]] = [
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    ),
    # a block cut before its END line (a truncated `cat id_rsa`): the header and its body lines
    (
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[ \t]*\r?\n[ \t]*"
        r"(?:[\w-]+: [^\n]*|[A-Za-z0-9+/=]{8,}))*",
    ),
    ("anthropic_key", r"(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("stripe_key", r"(?<![\w-])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("github_token", r"(?<!\w)gh[pousr]_[A-Za-z0-9]{36,}"),
    ("github_token", r"(?<!\w)github_pat_[A-Za-z0-9_]{22,}"),
    ("aws_access_key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("slack_token", r"(?<![\w-])xox[abeoprs]-[A-Za-z0-9-]{10,}"),
    ("slack_webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    ("google_api_key", r"(?<![\w-])AIza[0-9A-Za-z_-]{35}"),
    (
        "jwt",
        r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    # credentials inside a URL: scheme://user:SECRET@host, also with no user (redis://:pw@h)
    ("url_password", r"(?<=://)[^\s:/@\[\]]*:(?P<secret>[^\s@/\[\]]+)(?=@[\w.-])"),
    ("bearer_token", r"(?i)(?<=\bbearer )(?P<secret>[A-Za-z0-9._~+/=-]{20,})"),
]

# `label: value` / `label = value` / `"label": "value"`: the label is kept.
_PASSWORD_LABELS = r"password|passwd|passphrase|pwd|db_pass(?:word)?|[\w-]*_password|密码|口令"
_SECRET_LABELS = (
    r"aws_secret_access_key|aws_secret_key|secret_access_key|secret_key|client_secret|"
    r"api[_-]?key|api[_-]?secret|access[_-]?token|auth[_-]?token|refresh[_-]?token|"
    r"private[_-]?key|app[_-]?secret|secret|token|[\w-]*_token|[\w-]*_secret|[\w-]*api_?key"
)
_VALUE = r"(?:(?P<quote>[\"'`])(?P<quoted>[^\"'`\n]+)(?P=quote)|(?P<bare>[^\s\"'`,;]+))"
_ASSIGN = r"[\"']?[ \t]*(?:[:=]|=>|：)[ \t]*"
_LABELLED: list[tuple[str, re.Pattern[str], Callable[[str], bool]]] = []

# values that are clearly not secrets (placeholders, references, redactions)
_NOT_A_SECRET = re.compile(
    r"^(?:\[REDACTED:[\w]+\]|\$\{?[\w.]+\}?|<[^>]*>|\*+|x+|\.\.\.|…|none|null|nil|true|false|"
    r"changeme_placeholder|required|optional|redacted|hidden|unset|empty|n/?a|tbd|todo|"
    r"env\(.*\)|os\.environ.*|process\.env.*|getenv.*)$",
    re.IGNORECASE,
)


def _plausible_password(value: str) -> bool:
    return len(value) >= 4 and not _NOT_A_SECRET.match(value)


def _plausible_key(value: str) -> bool:
    """A labelled key/secret: long and mixing letters with digits or symbols, not a word."""
    if len(value) < 16 or _NOT_A_SECRET.match(value) or " " in value:
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_other = any(c.isdigit() or c in "_-+/=." for c in value)
    return has_alpha and has_other


for _labels, _check in ((_PASSWORD_LABELS, _plausible_password), (_SECRET_LABELS, _plausible_key)):
    _LABELLED.append(
        (
            "password" if _check is _plausible_password else "secret",
            re.compile(
                rf"(?i)(?<![\w-])[\"']?(?P<label>{_labels})(?![\w-]){_ASSIGN}{_VALUE}",
            ),
            _check,
        )
    )

_COMPILED = [(kind, re.compile(pattern)) for kind, pattern in _TOKEN_PATTERNS]

# A pattern runs only when one of its needles occurs (token needles as written, label needles
# in the lower-cased text): most notes hold none, and scanning is what costs on a large file.
_TOKEN_NEEDLES: dict[str, tuple[str, ...]] = {
    "private_key": ("PRIVATE KEY",),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "stripe_key": ("_live_", "_test_"),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "aws_access_key": ("AKIA", "ASIA", "ABIA", "ACCA"),
    "slack_token": ("xox",),
    "slack_webhook": ("hooks.slack.com",),
    "google_api_key": ("AIza",),
    "jwt": ("eyJ",),
    "url_password": ("@",),
    "bearer_token": ("bearer", "Bearer", "BEARER"),
}
_LABEL_NEEDLES: dict[str, tuple[str, ...]] = {
    "password": ("pass", "pwd", "密码", "口令"),
    "secret": ("secret", "key", "token"),
}


# An AWS secret key has no prefix: 40 base64 characters, redacted only near an access key id
# (where it always comes) and only when mixing cases or symbols (so a hex SHA-1 survives).
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_NEAR = 300  # characters either side of the access key id
_AWS_ID_PLACEHOLDER = PLACEHOLDER.format(kind="aws_access_key")

# "the db password is hunter2" (no colon): the value is taken when it is the sentence's last
# word, or holds a digit or symbol ("the password is stored in vault" keeps its words).
_PASSWORD_SENTENCE = re.compile(
    r"(?i)(?<![\w-])(?:password|passwd|passphrase|pwd|密码)\s+(?:is|was|=|是)\s+(?:now\s+)?"
    r"(?:(?P<quote>[\"'`])(?P<quoted>[^\"'`\n]{4,})(?P=quote)|(?P<bare>[^\s\"'`]*[^\s\"'`.,;:!?)]))"
)


def _redact_aws_secrets(text: str, kinds: list[str]) -> str:
    """Unlabelled AWS secret keys within `_AWS_NEAR` characters of a redacted access key id."""
    if _AWS_ID_PLACEHOLDER not in text:
        return text
    near = [
        (m.start() - _AWS_NEAR, m.end() + _AWS_NEAR)
        for m in re.finditer(re.escape(_AWS_ID_PLACEHOLDER), text)
    ]

    def replace(match: re.Match[str]) -> str:
        value = match.group(0)
        mixed = (any(c.islower() for c in value) and any(c.isupper() for c in value)) or any(
            c in "/+" for c in value
        )
        if not mixed or not any(low <= match.start() <= high for low, high in near):
            return value
        kinds.append("aws_secret_key")
        _remember(value, "aws_secret_key")
        return PLACEHOLDER.format(kind="aws_secret_key")

    return _AWS_SECRET.sub(replace, text)


def _redact_password_sentences(text: str, kinds: list[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        group = "quoted" if match.group("quoted") is not None else "bare"
        value = match.group(group)
        if not _plausible_password(value) or value.startswith("[REDACTED:"):
            return match.group(0)
        rest = text[match.end() : text.find("\n", match.end()) % (len(text) + 1)].lstrip(" \t")
        last_word = not rest or rest[0] in ".,;:!?)"
        if group == "bare" and not (last_word or any(not c.isalpha() for c in value)):
            return match.group(0)
        return _replace(match, "password", kinds, group)

    return _PASSWORD_SENTENCE.sub(replace, text)


# "my api token is …" / "the secret key was …": a labelled key in a sentence (16+ characters
# mixing letters with digits or symbols, so "the token is stored in vault" keeps its words).
_KEY_SENTENCE = re.compile(
    r"(?i)(?<![\w-])(?:token|api[ _-]?key|secret(?:[ _-]?key)?|access[ _-]?key|client secret)"
    r"\s+(?:is|was|=|是)\s+(?:now\s+)?"
    r"(?:(?P<quote>[\"'`])(?P<quoted>[^\"'`\n]+)(?P=quote)|(?P<bare>[^\s\"'`]*[^\s\"'`.,;:!?)]))"
)


def _redact_key_sentences(text: str, kinds: list[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        group = "quoted" if match.group("quoted") is not None else "bare"
        value = match.group(group)
        if not _plausible_key(value) or "[REDACTED:" in value:
            return match.group(0)
        return _replace(match, "secret", kinds, group)

    return _KEY_SENTENCE.sub(replace, text)


# A `.env` / shell line `NAME=value` whose NAME says it holds a secret: a word of it is
# SECRET, TOKEN, PASSWORD, … or it ends in KEY (API_KEY, STRIPE_KEY; not KEY_ID or KEY_PATH).
_ENV_LINE = re.compile(
    r"(?m)^(?P<lead>[ \t]*(?:export[ \t]+)?)(?P<label>[A-Z][A-Z0-9_]*)[ \t]*=[ \t]*"
    r"(?:(?P<quote>[\"'])(?P<quoted>[^\"'\n]*)(?P=quote)|(?P<bare>[^\s#\"']+))"
)
_ENV_SECRET_WORDS = frozenset(
    {"SECRET", "SECRETS", "TOKEN", "PASSWORD", "PASSWD", "PASSPHRASE", "PWD", "PASS", "PW"}
    | {"CREDENTIAL", "CREDENTIALS", "APIKEY", "PRIVATE", "SALT", "DSN"}
)
_ENV_PASSWORD_WORDS = frozenset({"PASSWORD", "PASSWD", "PASSPHRASE", "PWD", "PASS", "PW"})


def _redact_env_lines(text: str, kinds: list[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        words = match.group("label").split("_")
        group = "quoted" if match.group("quoted") is not None else "bare"
        value = match.group(group)
        if not (_ENV_SECRET_WORDS.intersection(words) or words[-1].endswith("KEY")):
            return match.group(0)
        password = bool(_ENV_PASSWORD_WORDS.intersection(words))
        if "[REDACTED:" in value or not _plausible_password(value):
            return match.group(0)
        if not password and (value.isdigit() or len(value) < 8):
            return match.group(0)  # MAX_TOKENS=4096, TOKEN_TTL=3600
        return _replace(match, "password" if password else "secret", kinds, group)

    return _ENV_LINE.sub(replace, text)


@dataclass
class Redaction:
    """The redacted text and the kinds of secret found, in order of appearance (with repeats)."""

    text: str
    kinds: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when at least one secret was replaced."""
        return bool(self.kinds)


def redact_secrets(text: str) -> Redaction:
    """Replace every secret in `text` with `[REDACTED:<kind>]`; the rest is kept verbatim."""
    kinds: list[str] = []
    if _KNOWN:
        text = _redact_known(text, kinds)
    for kind, pattern in _COMPILED:
        if any(needle in text for needle in _TOKEN_NEEDLES[kind]):
            text = pattern.sub(functools.partial(_replace, kind=kind, kinds=kinds), text)
    text = _redact_aws_secrets(text, kinds)
    if "=" in text:
        text = _redact_env_lines(text, kinds)
    lowered = text.lower()
    if any(needle in lowered for needle in _LABEL_NEEDLES["password"]):
        text = _redact_password_sentences(text, kinds)
    if any(needle in lowered for needle in _LABEL_NEEDLES["secret"]):
        text = _redact_key_sentences(text, kinds)
    for kind, pattern, plausible in _LABELLED:
        if not any(needle in lowered for needle in _LABEL_NEEDLES[kind]):
            continue
        replace = functools.partial(_replace_labelled, kind=kind, plausible=plausible, kinds=kinds)
        text = pattern.sub(replace, text)
    return Redaction(text, kinds)


# Secrets found so far in this process (in memory only): a value once found by its format or
# label is replaced wherever it turns up later, also bare ("your .env has tok3n…" in a reply).
_KNOWN: dict[str, str] = {}
_KNOWN_MIN_LENGTH = 8  # shorter values are too likely to be ordinary words
_KNOWN_MAX = 2_000


def _remember(value: str, kind: str) -> None:
    if len(value) >= _KNOWN_MIN_LENGTH and len(_KNOWN) < _KNOWN_MAX and "[REDACTED:" not in value:
        _KNOWN.setdefault(value, kind)


def _redact_known(text: str, kinds: list[str]) -> str:
    for value, kind in list(_KNOWN.items()):
        if value in text:
            text, count = _whole(value).subn(PLACEHOLDER.format(kind=kind), text)
            kinds.extend([kind] * count)
    return text


@functools.lru_cache(maxsize=_KNOWN_MAX)
def _whole(value: str) -> re.Pattern[str]:
    """`value` where it stands whole: inside a longer key it would leave that key's tail in the
    text, which the longer key's own pattern no longer matches."""
    return re.compile(rf"(?<![\w-]){re.escape(value)}(?![\w-])")


def _replace(match: re.Match[str], kind: str, kinds: list[str], group: str = "secret") -> str:
    kinds.append(kind)
    placeholder = PLACEHOLDER.format(kind=kind)
    if group not in match.re.groupindex:
        _remember(match.group(0), kind)
        return placeholder
    _remember(match.group(group), kind)
    start, end = match.span(group)
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + placeholder + whole[end - offset :]


def _replace_labelled(
    match: re.Match[str], kind: str, plausible: Callable[[str], bool], kinds: list[str]
) -> str:
    group = "quoted" if match.group("quoted") is not None else "bare"
    if not plausible(match.group(group)):
        return match.group(0)
    if kind == "secret" and "aws" in match.group("label").lower():
        kind = "aws_secret_key"
    return _replace(match, kind, kinds, group)


def redact_text(text: str) -> str:
    """`text` as it may be stored: every secret replaced."""
    return redact_secrets(text).text if text else text


T = TypeVar("T")


def redact_data(value: T) -> T:
    """A JSON-like value with the secrets in every string replaced (dicts, their keys, lists
    and tuples walked; other values returned as they are): the same shape, so the same type."""
    redacted: object = value
    if isinstance(value, str):
        redacted = redact_text(value)
    elif isinstance(value, dict):
        redacted = {redact_data(key): redact_data(item) for key, item in value.items()}
    elif isinstance(value, list):
        redacted = [redact_data(item) for item in value]
    elif isinstance(value, tuple):
        redacted = tuple(redact_data(item) for item in value)
    return cast(T, redacted)


def holds_secret(data: bytes | str) -> bool:
    """True when `data` (bytes decoded with replacement) holds something `redact_secrets` would
    replace: what must not be copied anywhere remecli keeps files."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return redact_secrets(text).changed
