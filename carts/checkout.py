"""Checkout with an optional coupon: which discount, if any, the order may carry.

A multi-use coupon simply applies. A one-time coupon must be claimed first and
only an accepted claim lets the order carry it (issue 6, claims/).
"""

from cartlog.problems import DomainError
from catalog.models import Coupon

from . import commands as c
from . import services
from .handler import Context, Outcome


class CouponError(DomainError):
    """The coupon does not exist or no longer applies (HTTP 400)."""

    status = 400
    title = "Invalid coupon"
    field = "coupon"


class CouponUsedError(DomainError):
    """A one-time coupon someone else's order already carries (HTTP 409)."""

    status = 409
    title = "Coupon already used"
    field = "coupon"


def place_order(context: Context, cart_id: str, coupon_code: str | None) -> Outcome:
    if not coupon_code:
        return services.checkout(context, cart_id)
    coupon = find_coupon(coupon_code)
    discount = c.Discount(code=coupon.code, percent=coupon.percent)
    if coupon.once:
        return _checkout_with_one_time_coupon(context, cart_id, discount)
    return services.checkout(context, cart_id, discount)


def find_coupon(code: str) -> Coupon:
    coupon = Coupon.objects.filter(code__iexact=code.strip(), active=True).first()
    if coupon is None:
        raise CouponError(f"There is no active coupon {code.strip()!r}.")
    return coupon


def _checkout_with_one_time_coupon(context: Context, cart_id: str, discount: c.Discount) -> Outcome:
    raise CouponUsedError("One-time coupons are decided by claims, which this deployment does not run yet.")
