"""Running a cart command for the shop: who sends it, and what to tell the shopper
when it is refused. The command itself always goes through carts.services or
carts.checkout, the same layer the REST API uses.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest

from carts import errors, services
from carts.decider import CartStatus
from carts.handler import Context, Outcome
from kernel.errors import DomainError
from projections.models import CartView

from . import current

CHANGED_ELSEWHERE = (
    "Your cart changed in another tab or window while you were looking at it. "
    "We reloaded it: please check it and try again."
)
ALREADY_CHECKED_OUT = (
    "That cart has already been checked out (perhaps in another tab), so it can no longer change. "
    "Here is your current cart."
)


@dataclass(frozen=True, kw_only=True)
class Refusal:
    """Why a command was refused, in a shopper's words; `kind` picks how the page reacts."""

    message: str
    kind: str  # "invalid" (show beside the field) | "stale" | "checked_out" | "missing"
    field: str | None = None  # the form field the message belongs beside, if any


def context(request: HttpRequest, expected_version: int | None = None, idempotency_key: str | None = None) -> Context:
    return Context(actor=current.actor(request), expected_version=expected_version, idempotency_key=idempotency_key)


def attempt(action: Callable[[], Outcome], cart_id: str | None = None) -> Outcome | Refusal:
    """Run a command; a refusal comes back as words. `cart_id` names the cart a
    version-pinned command targets, to tell "checked out meanwhile" from other changes."""
    try:
        return action()
    except (errors.StaleVersionError, errors.ConcurrencyConflictError):
        if cart_id and CartView.objects.filter(cart_id=cart_id, status=CartStatus.CHECKED_OUT).exists():
            return Refusal(message=ALREADY_CHECKED_OUT, kind="checked_out")
        return Refusal(message=CHANGED_ELSEWHERE, kind="stale")
    except errors.CartCheckedOutError:
        return Refusal(message=ALREADY_CHECKED_OUT, kind="checked_out")
    except errors.CartNotFoundError:
        return Refusal(message="That cart is not yours or no longer exists. Here is your current cart.", kind="missing")
    except DomainError as error:
        return Refusal(message=error.detail, kind="invalid", field=error.field)


def ensure_cart(request: HttpRequest) -> str:
    """The visitor's open cart id, starting one (StartCart) if they have none."""
    cart = current.current_cart(request)
    if cart is not None:
        return cart.cart_id
    outcome = services.start_cart(context(request))
    current.remember_cart(request, outcome.state.cart_id)
    return outcome.state.cart_id
