"""The stored documents' JSON (`eventlog.stores.sql.dumps`) is what json.dumps with Django's
encoder writes, the way it was written before orjson wrote it: the same text for the values
events hold, the same refusals."""

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from uuid import UUID

import pytest

from eventlog.stores.sql import dumps

WHEN = datetime(2026, 11, 26, 19, 5, 7, 123456, tzinfo=UTC)


def test_an_events_document_is_written_as_djangos_encoder_writes_it() -> None:
    document = {
        "sku": "COF-001",
        "quantity": 3,
        "unit_price": Decimal("12.50"),
        "order_id": UUID("1b4e28ba-2fa1-11d2-883f-0016d3cca427"),
        "at": WHEN,
        "on": date(2026, 11, 26),
        "lines": [["TEA-001", 1, "9.50"], []],
        "coupon": None,
        "gift": False,
        "weight": 0.25,
        "nested": {"a": {"b": [1, 2.5, "x"]}},
        7: "a key that is a number",
    }
    assert dumps(document) == (
        '{"sku":"COF-001","quantity":3,"unit_price":"12.50",'
        '"order_id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","at":"2026-11-26T19:05:07.123Z",'
        '"on":"2026-11-26","lines":[["TEA-001",1,"9.50"],[]],"coupon":null,"gift":false,'
        '"weight":0.25,"nested":{"a":{"b":[1,2.5,"x"]}},"7":"a key that is a number"}'
    )


def test_an_offset_and_a_duration_are_written_as_django_writes_them() -> None:
    east = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    assert (
        dumps({"at": east, "took": timedelta(minutes=90)})
        == '{"at":"2026-01-02T03:04:05+02:00","took":"P0DT01H30M00S"}'
    )


def test_text_beyond_ascii_is_the_same_value() -> None:
    """orjson writes it as UTF-8 where json.dumps escapes it; a reader gets the same string."""
    document = {"name": "Crème brûlée — 茶", "emoji": "☕"}
    assert json.loads(dumps(document)) == document


def test_an_integer_beyond_64_bits_is_still_written() -> None:
    assert dumps({"n": 2**70}) == '{"n":1180591620717411303424}'


@dataclass
class NotADocument:
    x: int


@pytest.mark.parametrize("value", [NotADocument(1), {1, 2}, object()])
def test_what_djangos_encoder_refuses_is_refused(value: object) -> None:
    with pytest.raises(TypeError):
        dumps({"value": value})
