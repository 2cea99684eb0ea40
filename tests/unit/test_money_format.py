"""One money format on every page: "€17,011.30" (cartlog/templatetags/money.py)."""

from decimal import Decimal

import pytest
from django.template import engines

from cartlog.templatetags.money import format_money


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Decimal("17011.3"), "€17,011.30"),
        (Decimal("12.50"), "€12.50"),
        ("1234567.005", "€1,234,567.01"),
        (0, "€0.00"),
        (Decimal("-2.5"), "\u2212€2.50"),
        (None, ""),
    ],
)
def test_amounts_have_the_euro_sign_thousands_separators_and_two_decimals(amount: object, shown: str) -> None:
    assert format_money(amount) == shown


def test_the_filter_is_a_builtin_of_every_template() -> None:
    template = engines["django"].from_string("{{ revenue|money }}")
    assert template.render({"revenue": Decimal("17011.30")}) == "€17,011.30"
