"""Personal fields in and out of events: sealed for a person on the way in, revealed at read time.

Only the views that serve the person (their order pages, the staff's order
page, their cart's events) reveal; everything downstream of the log keeps the
box. A box whose key was destroyed reveals every field as `[erased]`.
"""

import logging
from collections.abc import Mapping
from typing import Any

from . import keys, sealing
from .sealing import Box

log = logging.getLogger(__name__)


def seal_for(person: str, fields: Mapping[str, str]) -> Box:
    key_id, key = keys.current(person)
    return sealing.seal(fields, key, key_id)


class Revealer:
    """Opens boxes, looking each key up once (a page of orders shares one person's key)."""

    def __init__(self) -> None:
        self._keys: dict[str, bytes | None] = {}

    def __call__(self, box: Box | None) -> dict[str, str] | None:
        if box is None:
            return None
        key_id = str(box["key_id"])
        if key_id not in self._keys:
            self._keys[key_id] = keys.find([key_id]).get(key_id)
        key = self._keys[key_id]
        if key is None:
            return sealing.erased(box)
        try:
            return sealing.open_box(box, key)
        except sealing.BoxOpenError:
            log.warning("a box under key %s does not open: shown as erased", key_id)
            return sealing.erased(box)

    def in_data(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Event data with each sealed field revealed (the events API, for the cart's owner)."""
        return {name: self(value) if sealing.is_box(value) else value for name, value in data.items()}


def reveal(box: Box | None) -> dict[str, str] | None:
    return Revealer()(box)
