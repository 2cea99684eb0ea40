"""A command's two statements sent over libpq itself, without a cursor around them.

A cart command is two statements (its read and its write, docs/round-trips.md),
and once they were that few, the Python around each one was most of a command's
time: Django's cursor wrapper and psycopg's cursor cost about 155 µs of CPU per
statement, against about 25 µs for the same statement sent through psycopg's own
libpq binding (`psycopg.pq`) and its rows decoded by psycopg's own loaders
(`psycopg.adapt.Transformer`, in C). docs/benchmarks.md has the measurement.

`fetch` is that path, and only where it is the same thing as a cursor:

- the connection is in autocommit and idle, so the statement is a transaction of
  its own, as it would be through a cursor; inside `atomic()` (a retry, a
  caller's transaction) it returns None and the caller uses a cursor, so Django
  keeps full control of BEGIN, savepoints and COMMIT;
- each statement is prepared once per connection (named `cartlog_<its digest>`, apart
  from psycopg's own `_pg3_<n>`), with its parameters sent as text and their types
  left to PostgreSQL, which takes them from where each one is used; a connection
  that lost its prepared statements (a pooler's DISCARD ALL) prepares them again,
  and with server-side binding off (DB_SERVER_SIDE_BINDING=0, a pooler that keeps
  no prepared statements) nothing is prepared: each statement is parsed each time;
- errors are Django's (`wrap_database_errors`): an IntegrityError stays one, and a
  lost connection marks the Django connection unusable, so the next request
  reconnects as it would after a cursor's error (docs/reliability.md);
- execute wrappers see every statement (tests count a command's statements with
  one), and with Django's query log on (DEBUG, `CaptureQueriesContext`) it steps
  aside so that the log stays complete.

libpq blocks in C with the GIL released, so the web tier's other threads run
meanwhile, as they do while a cursor waits.
"""

from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import partial
from hashlib import blake2b
from typing import Any, cast
from uuid import UUID
from weakref import WeakKeyDictionary

from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg import Connection, abc, errors, pq
from psycopg.adapt import AdaptersMap, Transformer
from psycopg.types.datetime import TimestamptzLoader

Rows = list[tuple[Any, ...]]

_OK = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK)


@dataclass
class _Prepared:
    """What one connection has: its prepared statements by SQL, and a row loader."""

    loader: abc.Transformer
    names: dict[str, bytes] = field(default_factory=dict)


# Per psycopg connection: a reconnect is a new connection object, with nothing prepared.
_connections: "WeakKeyDictionary[Connection[Any], _Prepared]" = WeakKeyDictionary()


def fetch(connection: BaseDatabaseWrapper, sql: str, params: Sequence[Any]) -> Rows | None:
    """The rows of one statement sent straight over libpq, or None where a cursor must send it."""
    if connection.queries_logged:
        return None
    connection.close_if_health_check_failed()  # what a cursor does first (CONN_HEALTH_CHECKS)
    connection.ensure_connection()
    raw = connection.connection
    if not raw.autocommit or raw.info.transaction_status != pq.TransactionStatus.IDLE:
        return None
    run: Callable[..., Rows] = partial(_run, raw)
    for wrapper in reversed(connection.execute_wrappers):  # as Django's CursorWrapper chains them
        run = partial(wrapper, run)
    with connection.wrap_database_errors:
        return run(sql, params, False, {"connection": connection, "cursor": None})


def _run(raw: Connection[Any], sql: str, params: Sequence[Any], many: bool, context: dict[str, Any]) -> Rows:
    prepared = _connections.get(raw)
    if prepared is None:
        prepared = _connections[raw] = _Prepared(loader=_loader(raw))
    # None is NULL to libpq (psycopg's own cursor passes it so); its type hints leave it out.
    values = cast(list[bytes], [as_text(value) for value in params])
    if context["connection"].settings_dict["OPTIONS"].get("server_side_binding"):
        result = _exec_prepared(raw, prepared, sql, values)
    else:  # DB_SERVER_SIDE_BINDING=0 (a pooler that keeps no prepared statements): parsed every time
        result = check_result(raw, raw.pgconn.exec_params(numbered(sql).encode(), values))
    prepared.loader.set_pgresult(result)
    return prepared.loader.load_rows(0, result.ntuples, tuple)


def _exec_prepared(raw: Connection[Any], prepared: _Prepared, sql: str, values: list[bytes]) -> pq.abc.PGresult:
    try:
        return check_result(raw, raw.pgconn.exec_prepared(_name(raw, prepared, sql), values))
    except errors.InvalidSqlStatementName:  # the session's statements were discarded: prepare again
        prepared.names.clear()
        return check_result(raw, raw.pgconn.exec_prepared(_name(raw, prepared, sql), values))


def _name(raw: Connection[Any], prepared: _Prepared, sql: str) -> bytes:
    """The statement's name on this connection, prepared first if this process has not yet.

    The name is the statement's digest, so it can only ever stand for this statement:
    if the session already has it (this process lost count of what it prepared),
    that one is used. A name counted per connection once met a session that held it
    for another statement ("already exists") under eight threads' retries."""
    name = prepared.names.get(sql)
    if name is None:
        name = b"cartlog_" + blake2b(sql.encode(), digest_size=12).hexdigest().encode()
        with suppress(errors.DuplicatePreparedStatement):  # the same statement, by its name
            check_result(raw, raw.pgconn.prepare(name, numbered(sql).encode(), None))
        prepared.names[sql] = name
    return name


def check_result(raw: Connection[Any], result: pq.abc.PGresult) -> pq.abc.PGresult:
    """`result` if the statement succeeded; else the error a cursor would raise."""
    if result.status in _OK:
        return result
    if not result.error_field(pq.DiagnosticField.SQLSTATE):
        # libpq's own error, not the server's: the session was lost without a word (a crash, a cut
        # connection). psycopg's cursor sees that as OperationalError, and so must Django (a 503).
        raise errors.OperationalError(result.get_error_message(raw.info.encoding))
    raise errors.error_from_result(result, encoding=raw.info.encoding)


def _loader(raw: Connection[Any]) -> abc.Transformer:
    """The connection's loaders (Django's included), with psycopg's C loader for timestamptz,
    as a bulk read uses (`PostgresStore.prepare_bulk_read`): the same aware UTC datetimes."""
    adapters = AdaptersMap(raw.adapters)
    adapters.register_loader("timestamptz", TimestamptzLoader)
    return Transformer(adapters)


def numbered(sql: str) -> str:
    """`%s` placeholders as PostgreSQL's `$1, $2, …`. The statements sent here have no other `%`."""
    parts = sql.split("%s")
    if any("%" in part for part in parts):
        raise ValueError("only %s placeholders, no other % sign, in a statement sent over libpq")
    return "".join(f"{part}${n}" for n, part in enumerate(parts[:-1], start=1)) + parts[-1]


def as_text(value: Any) -> bytes | None:
    """A parameter in PostgreSQL's text format, its type left to the statement."""
    if type(value) is str:  # most of them: ids, JSON documents
        return value.encode()
    if value is None:
        return None
    if type(value) is int:  # versions, quantities (a bool is not: it is its own type)
        return str(value).encode()
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bool):  # before int: a bool is an int
        return b"t" if value else b"f"
    if isinstance(value, int | Decimal | UUID):
        return str(value).encode()
    if isinstance(value, date):  # a datetime too: ISO 8601, with its offset when aware
        return value.isoformat().encode()
    raise TypeError(f"no text form here for a parameter of type {type(value).__name__}")
