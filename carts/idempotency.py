"""Invariant 5: a command id seen before returns its first outcome and appends nothing.

The record of a command's outcome is a row its append writes in the same
statement (`row`, eventlog.alongside), and its key must be new. A repeat is
noticed when it does not go through: its write finds the key taken
(RowConflictError, and nothing is written), or deciding it again refuses it (a
checkout sent twice finds the cart checked out). Only then does the handler look
the record up (`lookup`) and return the first outcome, or refuse a different
request sent with the same key. A command with a fresh key, the usual case, costs
no extra statement. A keyed command that changed nothing (a quantity set to what it
is) has no append to carry its record: it is written on its own (`record`), so that
a retry answers with that outcome even after another write changed the cart.
Records live in the database (this module) or in the memory store
(`MemoryProcessedCommands`), for unit tests of the handler's rules.
"""

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Protocol

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from eventlog.alongside import LAST_VERSION, Row
from eventlog.stores import MemoryStore

from . import commands as c
from .errors import IdempotencyKeyReusedError
from .models import ProcessedCommand

# Fields that differ between two sends of the same request and so are not part of
# what the client asked: the time, a fresh order id, the catalog's current data.
_VOLATILE = {"at", "order_id", "product", "withdrawn"}  # the clock's and the catalog's, not the request's


@dataclass(frozen=True)
class PriorOutcome:
    cart_id: str
    version: int


class ProcessedCommands(Protocol):
    def lookup(self, command_id: str, command: c.CartCommand) -> PriorOutcome | None:
        """The first outcome of `command_id`; IdempotencyKeyReusedError if it was another request."""
        ...

    def row(self, command_id: str, command: c.CartCommand) -> Row:
        """The record, a row for the command's append to write (eventlog.alongside): its version
        is the append's last. Its key must be new: taken, the append fails (RowConflictError)."""
        ...

    def record(self, command_id: str, command: c.CartCommand, version: int) -> bool:
        """The record of a command that changed nothing, written on its own: its outcome is the cart
        at `version`, the one it was decided against. False if the key was taken."""
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
    found = ProcessedCommand.objects.filter(command_id=command_id).first()
    return None if found is None else _prior(command, found.fingerprint, found.cart_id, found.version)


def row(command_id: str, command: c.CartCommand) -> Row:
    values = {
        "command_id": command_id,
        "fingerprint": fingerprint(command),
        "cart_id": command.cart_id,
        "version": LAST_VERSION,
        "recorded_at": connection.ops.adapt_datetimefield_value(timezone.now()),
    }
    return Row(table=ProcessedCommand._meta.db_table, key="command_id", values=values)


def record(command_id: str, command: c.CartCommand, version: int) -> bool:
    try:
        with transaction.atomic():  # a savepoint in a caller's transaction: a taken key leaves it usable
            ProcessedCommand.objects.create(
                command_id=command_id, fingerprint=fingerprint(command), cart_id=command.cart_id, version=version
            )
    except IntegrityError:
        return False
    return True


class MemoryProcessedCommands:
    """The records the memory store wrote (its `tables`), for unit tests of the handler."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def lookup(self, command_id: str, command: c.CartCommand) -> PriorOutcome | None:
        found = self.store.tables.get(ProcessedCommand._meta.db_table, {}).get(command_id)
        return None if found is None else _prior(command, found["fingerprint"], found["cart_id"], found["version"])

    def row(self, command_id: str, command: c.CartCommand) -> Row:
        return row(command_id, command)

    def record(self, command_id: str, command: c.CartCommand, version: int) -> bool:
        records = self.store.tables.setdefault(ProcessedCommand._meta.db_table, {})
        if command_id in records:
            return False
        records[command_id] = {**row(command_id, command).values, "version": version}
        return True
