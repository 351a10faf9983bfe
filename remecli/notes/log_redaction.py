"""Every log record of the process redacted when it is made. The redactor (`notes/redact`, whose
patterns take ~6 ms to compile) loads with the first record made, not when this is installed: the
TUI's first frame comes before any."""

from __future__ import annotations

import logging
from typing import Any


def install_log_redaction() -> None:
    """Make every log record redacted when it is made (message, arguments and traceback), for
    every handler and logger of the process; installing it twice changes nothing."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "redacts", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        from remecli.notes.redact import redact_text

        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: logging reports it when the record is emitted
            return record
        record.msg, record.args = redact_text(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        return record

    factory.redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
