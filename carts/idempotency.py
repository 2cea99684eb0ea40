"""Invariant 5: a command id seen before returns its first outcome and appends nothing."""

import hashlib
import json
from dataclasses import asdict, dataclass

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


def fingerprint(command: c.CartCommand) -> str:
    volatile = _VOLATILE | {"cart_id"} if isinstance(command, c.StartCart) else _VOLATILE  # a fresh id per send
    fields = {k: v for k, v in asdict(command).items() if k not in volatile}
    body = json.dumps({"type": type(command).__name__, **fields}, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


def lookup(command_id: str, command: c.CartCommand) -> PriorOutcome | None:
    row = ProcessedCommand.objects.filter(command_id=command_id).first()
    if row is None:
        return None
    if row.fingerprint != fingerprint(command):
        raise IdempotencyKeyReusedError("This Idempotency-Key was already used for a different request; use a new key.")
    return PriorOutcome(cart_id=row.cart_id, version=row.version)


def record(command_id: str, command: c.CartCommand, version: int) -> None:
    """Written in the command's own transaction, after its append."""
    ProcessedCommand.objects.create(
        command_id=command_id, fingerprint=fingerprint(command), cart_id=command.cart_id, version=version
    )
