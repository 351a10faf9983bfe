"""Checkpoints of the workspace files the agent changes, per reply: what `/diff` shows and
`/undo` restores. Kept under the working dir (`checkpoints/`), outside the user's git history.

It sits in the tools layer because the tools that change files (`write`, `edit`, `bash`) feed
it and the slash commands above read it; nothing below the tools needs it.
"""

from remecli.tools.checkpoints.review import UndoOutcome, change_kind, reply_diff, undo_reply
from remecli.tools.checkpoints.store import CheckpointStore, FileChange, ReplyRecord
from remecli.tools.checkpoints.tracker import Checkpoints

__all__ = [
    "CheckpointStore",
    "Checkpoints",
    "FileChange",
    "ReplyRecord",
    "UndoOutcome",
    "change_kind",
    "reply_diff",
    "undo_reply",
]
