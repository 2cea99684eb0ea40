"""api.lean.native_json writes a cart document's bytes exactly as DRF's JSONRenderer does."""

from typing import Any

import pytest
from rest_framework.renderers import JSONRenderer

from api.lean import native_json

DOCUMENTS: list[Any] = [
    {"id": "c-1", "items": [{"sku": "COF-001", "quantity": 2, "unit_price": "12.50"}], "coupon": None},
    {"name": 'Café "Grand" \\ \n\t\r\b\f \x00\x1f\x7f', "version": 2**63 - 1},
    {"line\u2028sep": "para\u2029sep", "emoji": "\U0001f600", "cjk": "咖啡", "empty": [], "nested": {}},
    [True, False, None, -1, 0, "é"],
]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_native_json_writes_what_drfs_renderer_writes(document: Any) -> None:
    assert native_json(document) == JSONRenderer().render(document)


def test_line_and_paragraph_separators_are_escaped_as_drf_does() -> None:
    assert native_json({"a\u2028": "b\u2029"}) == b'{"a\\u2028":"b\\u2029"}'
