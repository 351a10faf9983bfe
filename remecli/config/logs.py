"""Log file setup: details go to `<working_dir>/logs/remecli.log`, never to the screen."""

from __future__ import annotations

import logging
import tempfile
from logging.handlers import RotatingFileHandler
from pathlib import Path

from remecli.config.disk_full import is_disk_full
from remecli.config.locations import Locations
from remecli.config.privacy import private_dirs
from remecli.config.settings import Settings


class WorkingDirUnusable(OSError):
    """The working dir cannot be created or written (read-only, a file, no permission)."""


def check_writable(settings: Settings, cwd: Path | None = None) -> Path:
    """The working dir, created if needed; `WorkingDirUnusable` says in one line what is wrong
    and what to do when remecli could not keep memory there."""
    root = Locations.from_settings(settings, cwd).root
    try:
        private_dirs(root)  # conversations live here: private to the user
        probe_write(root)
    except OSError as exc:
        if is_disk_full(exc):  # writable, only full: answers go on while memory writes wait
            return root
        reason = exc.strerror or type(exc).__name__
        raise WorkingDirUnusable(
            f"the working dir {root} cannot be written ({reason}); remecli keeps its memory "
            "there: pass working_dir=PATH (or REME_WORKING_DIR) pointing at a writable folder"
        ) from None
    return root


def probe_write(folder: Path) -> None:
    """Create and remove a file in `folder` (OSError when it cannot be written). The probe is
    this call's own: two checks at once in one process shared a name, one removed the other's
    probe and the check said "No such file or directory"."""
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".remecli-write-test-"):
        pass


class LogFile(RotatingFileHandler):
    """The rotating log file; a record it cannot write (a full disk) is dropped quietly —
    Python's default prints a traceback over the user's screen for each one."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802  (logging's name)
        return


def setup_logging(settings: Settings, cwd: Path | None = None) -> Path:
    """Send all logging to a rotating file under the working dir; return its path."""
    path = Locations.from_settings(settings, cwd).log_file
    private_dirs(path.parent)
    handler = LogFile(path, maxBytes=2_000_000, backupCount=2, encoding="utf-8")
    path.chmod(0o600)  # logs quote conversations: readable by the user only
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path
