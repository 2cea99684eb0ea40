"""Invariant 5: a command id seen before returns its first outcome and appends nothing.

The handler keeps its records through `ProcessedCommands`: in the database
(this module's `lookup` and `record`, in the command's own transaction) or in
memory (`MemoryProcessedCommands`), for unit tests of the handler's rules.
"""

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Protocol

from django.db import connection
from django.utils import timezone

from . import commands as c
from .errors import IdempotencyKeyReusedError
from .models import ProcessedCommand

# Fields that differ between two sends of the same request and so are not part of
# what the client asked: the time, a fresh order id, the catalog's current data.
_VOLATILE = {"at", "order_id", "product"}


@dataclass(frozen=True)
class PriorOutcome:
    cart_id: str
    version: int


class AlreadyRecordedError(Exception):
    """A concurrent request with the same command id recorded its outcome first."""


class ProcessedCommands(Protocol):
    def lookup(self, command_id: str, command: c.CartCommand) -> PriorOutcome | None:
        """The first outcome of `command_id`; IdempotencyKeyReusedError if it was another request."""
        ...

    def record(self, command_id: str, command: c.CartCommand, version: int) -> None:
        """Written in the command's own transaction, after its append; AlreadyRecordedError
        if a concurrent request with the same command id got there first."""
        ...


def fingerprint(command: c.CartCommand) -> str:
    volatile = _VOLATILE | {"cart_id"} if isinstance(command, c.StartCart) else _VOLATILE  # a fresh id per send
    fields = {k: v for k, v in asdict(command).items() if k not in volatile}
    body = json.dumps({"type": type(command).__name__, **fields}, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


def _prior(command: c.CartCommand, first_fingerprint: str, cart_id: str, version: int) -> PriorOutcome:
    if first_fingerprint != fingerprint(command):
        raise IdempotencyKeyReusedError("This Idempotency-Key was already used for a different request; use a new key.")
    return PriorOutcome(cart_id=cart_id, version=version)


# The database's records: this module itself is the `ProcessedCommands` the process uses.


def lookup(command_id: str, command: c.CartCommand) -> PriorOutcome | None:
    row = ProcessedCommand.objects.filter(command_id=command_id).first()
    return None if row is None else _prior(command, row.fingerprint, row.cart_id, row.version)


RECORD = f"""
INSERT INTO {ProcessedCommand._meta.db_table} (command_id, fingerprint, cart_id, version, recorded_at)
VALUES (%s, %s, %s, %s, %s) ON CONFLICT (command_id) DO NOTHING RETURNING 1
"""


def record(command_id: str, command: c.CartCommand, version: int) -> None:
    """Written in the command's own transaction, after its append, in one statement: no row back
    means someone else's record is there. A concurrent request's uncommitted record makes this
    insert wait for its end, then find it."""
    with connection.cursor() as cursor:
        cursor.execute(RECORD, [command_id, fingerprint(command), command.cart_id, version, timezone.now()])
        if cursor.fetchone() is None:
            raise AlreadyRecordedError(command_id)


class MemoryProcessedCommands:
    """Records in a dict. They do not roll back: `record` is the last write of a command."""

    def __init__(self) -> None:
        self.records: dict[str, tuple[str, PriorOutcome]] = {}

    def lookup(self, command_id: str, command: c.CartCommand) -> PriorOutcome | None:
        found = self.records.get(command_id)
        return None if found is None else _prior(command, found[0], found[1].cart_id, found[1].version)

    def record(self, command_id: str, command: c.CartCommand, version: int) -> None:
        if command_id in self.records:
            raise AlreadyRecordedError(command_id)
        self.records[command_id] = (fingerprint(command), PriorOutcome(cart_id=command.cart_id, version=version))
