"""User profiles (the reference's `ProfileHandler`): short `key: value` facts about one user
(name, job, city…), one row per key, kept in a JSON-lines file per user under
`<working_dir>/profile/<collection>/`, private to the user (0600) and redacted like every memory.

    handler = reme.get_profile_handler("alice")
    handler.add("2026-03-01 10:00:00", "job", "data engineer")
    handler.read_all()        # "[2026-03-01 10:00:00] job: data engineer"
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from remecli.config.privacy import private_dirs
from remecli.notes.atomic_write import atomic_write_text
from remecli.vector.node import PERSONAL, MemoryNode
from remecli.vector.redaction import redact_text

FILE_MODE = 0o600
_UNSAFE = re.compile(r"[^a-z0-9_.-]+")
_WORDS = re.compile(r"\w+", re.UNICODE)


def profile_file(folder: Path, user_name: str) -> Path:
    """The file of one user's profile (the reference's key: lower case, spaces as `_`)."""
    key = _UNSAFE.sub("_", user_name.replace(" ", "_").lower()).strip("._") or "user"
    return folder / f"{key}.jsonl"


class ProfileRow(TypedDict):
    """One profile key as the extractor names it (`summarizer.profile_rows`)."""

    profile_key: str
    profile_value: str
    message_time: str


class ProfileHandler:
    """Profile rows of one user; every method has an async twin named with an `a` prefix."""

    _locks: dict[Path, threading.Lock] = {}

    def __init__(
        self, memory_target: str, profile_path: Path, max_capacity: int = 50, redact: bool = True
    ) -> None:
        self.memory_target = memory_target
        self.path = profile_file(Path(profile_path), memory_target)
        self.max_capacity = max_capacity
        self.redact = redact
        self._lock = self._locks.setdefault(self.path, threading.Lock())

    # -- storage ---------------------------------------------------------------------------
    def _load(self) -> list[MemoryNode]:
        if not self.path.is_file():
            return []
        nodes = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                data = json.loads(line)
                data.pop("vector", None)
                nodes.append(MemoryNode(**data))
        return nodes

    def _save(self, nodes: list[MemoryNode], *, trim: bool = True) -> None:
        if trim and len(nodes) > self.max_capacity:
            nodes = sorted(nodes, key=lambda n: n.message_time)[-self.max_capacity :]
        private_dirs(self.path.parent)
        text = "".join(
            json.dumps(n.model_dump(exclude={"vector", "action"}), ensure_ascii=False) + "\n"
            for n in nodes
        )
        atomic_write_text(self.path, text, new_mode=FILE_MODE)

    def _row(self, message_time: str, key: str, value: str, ref_memory_id: str) -> MemoryNode:
        clean = redact_text if self.redact else str
        return MemoryNode(
            memory_type=PERSONAL,
            memory_target=self.memory_target,
            when_to_use=clean(str(key).strip()),
            content=clean(str(value).strip()),
            message_time=message_time,
            ref_memory_id=ref_memory_id,
        )

    # -- the reference's methods -----------------------------------------------------------
    def add(
        self, message_time: str, profile_key: str, profile_value: str, ref_memory_id: str = ""
    ) -> MemoryNode:
        """Set one key (a row with the same key is replaced)."""
        return self.add_batch(
            [
                {
                    "message_time": message_time,
                    "profile_key": profile_key,
                    "profile_value": profile_value,
                }
            ],
            ref_memory_id,
        )[0]

    def add_batch(
        self, profiles: Sequence[Mapping[str, object]], ref_memory_id: str = ""
    ) -> list[MemoryNode]:
        """Set many keys in one write (`profile_key`, `profile_value`, `message_time` each)."""
        rows = [
            self._row(
                str(p.get("message_time") or ""),
                str(p.get("profile_key") or ""),
                str(p.get("profile_value") or ""),
                ref_memory_id,
            )
            for p in profiles
            if str(p.get("profile_key") or "").strip()
        ]
        with self._lock:
            keys = {row.when_to_use for row in rows}
            kept = [n for n in self._load() if n.when_to_use not in keys]
            self._save(kept + rows)
        return rows

    def update(
        self, profile_id: str, message_time: str, profile_key: str, profile_value: str
    ) -> MemoryNode | None:
        """Change one row by id; None when there is no such row."""
        with self._lock:
            nodes = self._load()
            for index, node in enumerate(nodes):
                if node.memory_id == profile_id:
                    row = self._row(message_time, profile_key, profile_value, node.ref_memory_id)
                    row.memory_id = profile_id
                    nodes[index] = row
                    self._save(nodes, trim=False)
                    return row
        return None

    def delete(self, profile_id: str | list[str]) -> bool | int:
        """Delete one id (True/False) or a list of ids (how many)."""
        ids = {profile_id} if isinstance(profile_id, str) else set(profile_id)
        with self._lock:
            nodes = self._load()
            kept = [n for n in nodes if n.memory_id not in ids]
            if len(kept) != len(nodes):
                self._save(kept, trim=False)
        removed = len(nodes) - len(kept)
        return bool(removed) if isinstance(profile_id, str) else removed

    def delete_all(self) -> int:
        """Delete every row of this user; how many there were."""
        with self._lock:
            count = len(self._load())
            self._save([], trim=False)
        return count

    def get_by(
        self, *, profile_id: str | None = None, profile_key: str | None = None
    ) -> MemoryNode | None:
        """The row with this id or key."""
        if not profile_id and not profile_key:
            raise ValueError("give profile_id or profile_key")
        for node in self._load():
            if (profile_id and node.memory_id == profile_id) or (
                profile_key and node.when_to_use == profile_key
            ):
                return node
        return None

    def get_by_id(self, profile_id: str) -> MemoryNode | None:
        return self.get_by(profile_id=profile_id)

    def get_by_key(self, profile_key: str) -> MemoryNode | None:
        return self.get_by(profile_key=profile_key)

    def get_all(self) -> list[MemoryNode]:
        """Every row, oldest first."""
        return sorted(self._load(), key=lambda n: n.message_time)

    def search(self, query: str | list[str], limit: int = 5) -> list[MemoryNode]:
        """Rows sharing words with the query (key and value), best first."""
        queries = [query] if isinstance(query, str) else list(query)
        words = {w.lower() for q in queries for w in _WORDS.findall(q)}
        scored = []
        for node in self.get_all():
            own = {w.lower() for w in _WORDS.findall(f"{node.when_to_use} {node.content}")}
            if hits := len(words & own):
                scored.append((hits, node))
        scored.sort(key=lambda pair: -pair[0])
        return [node for _, node in scored[:limit]]

    @staticmethod
    def format_node(
        node: MemoryNode, add_profile_id: bool = False, add_history_id: bool = False
    ) -> str:
        """One row as a line: `profile_id=… [time] key: value history_id=…`."""
        parts = [f"profile_id={node.memory_id}"] if add_profile_id else []
        if node.message_time:
            parts.append(f"[{node.message_time}]")
        parts.append(f"{node.when_to_use}: {node.content}")
        if add_history_id and node.ref_memory_id:
            parts.append(f"history_id={node.ref_memory_id}")
        return " ".join(parts)

    def read_all(self, add_profile_id: bool = False, add_history_id: bool = False) -> str:
        """Every row as lines."""
        return "\n".join(
            self.format_node(n, add_profile_id, add_history_id) for n in self.get_all()
        )

    def retrieve(
        self,
        query: str | list[str],
        limit: int = 5,
        add_profile_id: bool = True,
        add_history_id: bool = False,
    ) -> tuple[list[MemoryNode], str]:
        """The rows matching `query` and the same as lines."""
        nodes = self.search(query, limit)
        return nodes, "\n".join(self.format_node(n, add_profile_id, add_history_id) for n in nodes)

    # -- async twins -----------------------------------------------------------------------
    async def aadd(
        self, message_time: str, profile_key: str, profile_value: str, ref_memory_id: str = ""
    ) -> MemoryNode:
        return await asyncio.to_thread(
            self.add, message_time, profile_key, profile_value, ref_memory_id
        )

    async def aadd_batch(
        self, profiles: Sequence[Mapping[str, object]], ref_memory_id: str = ""
    ) -> list[MemoryNode]:
        return await asyncio.to_thread(self.add_batch, profiles, ref_memory_id)

    async def aupdate(
        self, profile_id: str, message_time: str, profile_key: str, profile_value: str
    ) -> MemoryNode | None:
        return await asyncio.to_thread(
            self.update, profile_id, message_time, profile_key, profile_value
        )

    async def adelete(self, profile_id: str | list[str]) -> bool | int:
        return await asyncio.to_thread(self.delete, profile_id)

    async def adelete_all(self) -> int:
        return await asyncio.to_thread(self.delete_all)

    async def aget_by(
        self, *, profile_id: str | None = None, profile_key: str | None = None
    ) -> MemoryNode | None:
        return await asyncio.to_thread(
            lambda: self.get_by(profile_id=profile_id, profile_key=profile_key)
        )

    async def aget_by_id(self, profile_id: str) -> MemoryNode | None:
        return await asyncio.to_thread(self.get_by_id, profile_id)

    async def aget_by_key(self, profile_key: str) -> MemoryNode | None:
        return await asyncio.to_thread(self.get_by_key, profile_key)

    async def aget_all(self) -> list[MemoryNode]:
        return await asyncio.to_thread(self.get_all)

    async def asearch(self, query: str | list[str], limit: int = 5) -> list[MemoryNode]:
        return await asyncio.to_thread(self.search, query, limit)

    async def aread_all(self, add_profile_id: bool = False, add_history_id: bool = False) -> str:
        return await asyncio.to_thread(self.read_all, add_profile_id, add_history_id)

    async def aretrieve(
        self,
        query: str | list[str],
        limit: int = 5,
        add_profile_id: bool = True,
        add_history_id: bool = False,
    ) -> tuple[list[MemoryNode], str]:
        return await asyncio.to_thread(self.retrieve, query, limit, add_profile_id, add_history_id)
