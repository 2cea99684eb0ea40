"""`{{ amount|money }}`: every amount on every page in one format, "€17,011.30".

A builtin of the template engine (settings.TEMPLATES), so the shop and the staff
pages need no `{% load %}` and cannot drift apart. Amounts are decimals (strings
from JSON or the API are accepted); an empty amount is shown as an empty string.
"""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template

register = template.Library()
CENT = Decimal("0.01")


def format_money(amount: object, currency: str = "€") -> str:
    if amount is None or amount == "":
        return ""
    try:
        value = Decimal(str(amount)).quantize(CENT, rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return str(amount)
    sign = "\u2212" if value < 0 else ""  # a real minus sign (U+2212), as the cart's discount line uses
    return f"{sign}{currency}{abs(value):,.2f}"


@register.filter(name="money")
def money(amount: object) -> str:
    return format_money(amount)
