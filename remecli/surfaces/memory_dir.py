"""The memory folder as every surface entry point creates it: private to the user (0700)."""

from __future__ import annotations

from pathlib import Path

FOLDER_MODE = 0o700


def ensure_private_root(root: Path) -> Path:
    """Create the working dir 0700 (its missing parents as usual) before anything writes into
    it (the log file would otherwise create it with the umask's mode); an existing one is left
    as it is."""
    root = Path(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    root.mkdir(mode=FOLDER_MODE, exist_ok=True)
    return root
