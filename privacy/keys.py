"""The key store: each person's data keys, in their own table (`DataKey`), outside the log.

The newest key of a person seals; every key opens the boxes sealed under it
until it is destroyed. Rotating adds a key and never re-seals: events are
never rewritten, so old boxes keep naming the key they were sealed with.
"""

from collections.abc import Iterable
from uuid import uuid4

from . import sealing
from .models import DataKey


def current(person: str) -> tuple[str, bytes]:
    """The key that seals this person's new data (made on first use): its id and bytes."""
    row = DataKey.objects.filter(person=person).order_by("-created_at", "-key_id").first()
    return (row.key_id, bytes(row.key)) if row is not None else rotate(person)


def rotate(person: str) -> tuple[str, bytes]:
    """A new key for the person; their older keys stay, to open what they sealed."""
    key_id, key = uuid4().hex, sealing.new_key()
    DataKey.objects.create(key_id=key_id, person=person, key=key)
    return key_id, key


def find(key_ids: Iterable[str]) -> dict[str, bytes]:
    """The keys that still exist among `key_ids` (a destroyed one is simply missing)."""
    return {row.key_id: bytes(row.key) for row in DataKey.objects.filter(key_id__in=set(key_ids))}


def destroy(person: str) -> int:
    """Delete every key of the person; the number destroyed."""
    deleted, _ = DataKey.objects.filter(person=person).delete()
    return deleted
