"""What the SQLite and the PostgreSQL store write alike: the record columns of their table, the
sort order (missing values last, ties by insertion order) and the query of `list_nodes`. Each
store brings its `SqlDialect`: how it renders filters and values, its parameter mark."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from remecli.vector.filters import Condition, field_ref
from remecli.vector.node import NULLABLE
from remecli.vector.values import SqlParams

Rendered = tuple[str, SqlParams]  # SQL text and its bound parameters

# The columns of `node.COLUMNS` after memory_id, in the same SQL for both databases.
RECORD_COLUMNS = """  memory_type TEXT NOT NULL,
  memory_target TEXT NOT NULL,
  content TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  when_to_use TEXT NOT NULL DEFAULT '',
  message_time TEXT,
  time_created TEXT NOT NULL,
  time_modified TEXT NOT NULL,
  author TEXT NOT NULL DEFAULT '',
"""


@dataclass(frozen=True, slots=True)
class SqlDialect:
    """One database's way of writing the shared queries.

    `render_conditions` gives `(" WHERE …", params)` or `("", [])`; `value_expr(name,
    is_metadata)` the SQL of a column or metadata value; `seq` the insertion-order column;
    `mark` a bound parameter; `nulls_last` whether `NULLS LAST` may be written."""

    render_conditions: Callable[[list[Condition]], Rendered]
    value_expr: Callable[[str, bool], Rendered]
    seq: str
    mark: str
    nulls_last: bool

    def render_order(self, sort_key: str | None, reverse: bool) -> Rendered:
        """`ORDER BY` text (missing values last, ties by insertion order) and its params."""
        direction = "DESC" if reverse else "ASC"
        ties = f"{self.seq} {direction}"
        if not sort_key:
            return f" ORDER BY {ties}", []
        ref = field_ref(sort_key)
        expr, params = self.value_expr(ref.name, ref.is_metadata)
        if not ref.is_metadata and ref.name not in NULLABLE:  # never NULL: the indexes serve it
            return f" ORDER BY {expr} {direction}, {ties}", params
        if self.nulls_last:
            return f" ORDER BY {expr} {direction} NULLS LAST, {ties}", params
        return f" ORDER BY ({expr}) IS NULL, {expr} {direction}, {ties}", [*params, *params]

    def listing(
        self,
        select: str,
        conditions: list[Condition],
        sort_key: str | None,
        reverse: bool,
        limit: int | None,
    ) -> Rendered:
        """The query of `VectorStore.list_nodes`: `select`, the filters, the order and the
        limit, with its params."""
        where, params = self.render_conditions(conditions)
        order, order_params = self.render_order(sort_key, reverse)
        sql = f"{select}{where}{order}"
        params = [*params, *order_params]
        if limit is not None:
            sql += f" LIMIT {self.mark}"
            params.append(int(limit))
        return sql, params

    def and_conditions(self, conditions: list[Condition]) -> Rendered:
        """The filters as `" AND …"` after a WHERE of the caller's own (or `""`)."""
        where, params = self.render_conditions(conditions)
        return where.replace(" WHERE ", " AND ", 1), params
