"""Checkout: stock set aside, then the order, with an optional coupon.

    reserve stock for every line (inventory/reservations.py; 409 "Out of stock" if short, "Checkout in
    progress" if the units are held by another checkout of this very cart: `_refuse_short`)
      -> claim a one-time coupon, if any (claims/)
      -> CheckedOut and each ReservationConfirmed (and the coupon's ClaimUsed) in one transaction,
         decided on the cart at the version whose lines were reserved (changed since by another
         device: its units go back and the checkout starts over, ORDER_ATTEMPTS times at most)
      -> on any failure, the reservations are released (and the coupon's claim); a repeat answered
         with its first send's order releases the units it reserved meanwhile

A multi-use coupon simply applies. A one-time coupon is claimed first, and only
an accepted claim lets `CheckedOut` carry the discount.
"""

from dataclasses import replace
from datetime import UTC

from django.db import transaction
from django.utils import timezone

from catalog.models import Coupon
from catalog.queries import withdrawn
from claims import holds, keys
from claims import services as claims
from claims.models import ClaimStatus
from inventory import reservations
from inventory.errors import OutOfStockError
from inventory.reservations import Reservation
from kernel.errors import ConflictError, DomainError, InvalidInputError, UnavailableError
from kernel.principal import Principal

from . import commands as c
from . import errors, handler, services
from .decider import CartStatus, decide
from .handler import Context, Outcome
from .shipping import Shipping


class CouponError(InvalidInputError):
    """The coupon does not exist or no longer applies."""

    title = "Invalid coupon"
    field = "coupon"


class CouponPendingError(UnavailableError):
    """The claim validator has not decided the coupon's claim in time."""

    title = "Coupon check pending"
    field = "coupon"


class CouponHoldExpiredError(ConflictError):
    """The cart's hold on a one-time coupon ran out and was released before its order was placed."""

    title = "Coupon hold expired"
    field = "coupon"


class CouponUsedError(ConflictError):
    """A one-time coupon someone else's order already carries."""

    title = "Coupon already used"
    field = "coupon"


def place_order(context: Context, cart_id: str, coupon_code: str | None, shipping: Shipping | None = None) -> Outcome:
    if (first := _first_outcome(context, cart_id, coupon_code, shipping)) is not None:
        return first
    coupon = find_coupon(coupon_code) if coupon_code else None
    gone = withdrawn()  # read once: the dry checks and the command decide on the same catalog
    actor = str(context.actor)
    for _ in range(ORDER_ATTEMPTS):
        try:
            reservation, version = _reserve_stock(context, cart_id, gone)
        except DomainError:
            # The checkout that holds (or took) the units may be this request's first send, placed since
            # `_first_outcome` looked: it is answered with that order, as any repeat is.
            if (first := _first_outcome(context, cart_id, coupon_code, shipping)) is not None:
                return first
            raise
        # The order is decided on the cart whose lines were reserved, pinned to its version: decided
        # again on a cart another device changed meanwhile, it ordered lines (or units) nobody reserved,
        # and they left no stock (an oversell). Then the units go back and the checkout starts over.
        as_reserved = context if context.expected_version is not None else replace(context, expected_version=version)
        try:
            outcome = _place(as_reserved, cart_id, coupon, shipping, reservation, gone)
        except errors.StaleVersionError:
            reservations.release(reservation, "the cart changed before its order was placed", actor)
            if context.expected_version is not None:
                raise  # the caller pinned the version: 412
            continue
        except BaseException:
            reservations.release(reservation, "the checkout it was made for failed", actor)
            raise
        if not outcome.events:
            # A repeat whose first send placed the order while this one reserved (a client's retry after a
            # timeout, the first still running): it is answered with that order, and its own units go back
            # now, not when the sweep finds them STOCK_RESERVATION_SECONDS later.
            reservations.release(reservation, "the checkout was a repeat of one that placed its order", actor)
        return outcome
    raise errors.ConcurrencyConflictError("The cart kept changing while it was being checked out; try again.")


# A cart that changes between reserving and ordering is reserved again; this many times at most.
ORDER_ATTEMPTS = 3


def _place(
    context: Context,
    cart_id: str,
    coupon: Coupon | None,
    shipping: Shipping | None,
    reservation: Reservation,
    gone: frozenset[str],
) -> Outcome:
    if coupon is None:
        return _in_one_transaction(context, cart_id, None, shipping, reservation, gone)
    discount = c.Discount(code=coupon.code, percent=coupon.percent)
    if coupon.once:
        return _checkout_with_one_time_coupon(context, cart_id, discount, shipping, reservation, gone)
    return _in_one_transaction(context, cart_id, discount, shipping, reservation, gone)


def _first_outcome(
    context: Context, cart_id: str, coupon_code: str | None, shipping: Shipping | None
) -> Outcome | None:
    """The first outcome of a checkout sent again with its Idempotency-Key after it went through,
    before anything is checked: a coupon deactivated since, or a product withdrawn, does not change
    the order it placed. None when this is no repeat (or carries no key)."""
    if not context.idempotency_key:
        return None
    # The coupon as the first send found it, active or not now (a coupon is deactivated, never deleted).
    coupon = Coupon.objects.filter(code__iexact=coupon_code.strip()).first() if coupon_code else None
    usable = coupon is not None and c.Discount.MIN_PERCENT <= coupon.percent <= c.Discount.MAX_PERCENT
    discount = c.Discount(code=coupon.code, percent=coupon.percent) if coupon is not None and usable else None
    # The withdrawn SKUs are not part of a request's fingerprint (carts/idempotency.py): none are read.
    command = services.checkout_command(context, cart_id, discount, shipping=shipping, withdrawn=frozenset())
    return handler.replay(command, context)


def _reserve_stock(context: Context, cart_id: str, gone: frozenset[str]) -> tuple[Reservation, int]:
    """Set aside the units of every line, and say for which version of the cart; a cart that cannot
    check out (not yours, empty, already checked out, an idempotent repeat) reserves nothing and is
    refused or replayed by the handler."""
    state = handler.load(cart_id)
    if state.status is not CartStatus.OPEN or state.owner != str(context.actor) or not state.lines:
        return Reservation(id="", lines=()), state.version
    # A stale If-Match, or a line no longer sold, is refused before units are set aside: nothing is appended.
    handler.check_expected_version(state, context)
    decide(state, _dry_run(cart_id, gone))
    lines = [(line.sku, line.quantity) for line in state.lines]
    try:
        return reservations.reserve(lines, for_cart=cart_id, actor=str(context.actor)), state.version
    except OutOfStockError as short:
        _refuse_short(cart_id, short, gone)
        raise


def _refuse_short(cart_id: str, short: OutOfStockError, gone: frozenset[str]) -> None:
    """Why a cart's checkout found its units gone, when another checkout of the same cart took them
    (a retry sent while its first send still runs, another device's): not "out of stock" to its
    shopper. Returns when they are really short. Read in this order: a reservation leaves the stream
    exactly when its order commits (confirmed) or its checkout fails (released), so if the cart holds
    none here, the other checkout has ended, and the cart read next is checked out, or open and short."""
    if (until := reservations.held_for_cart(cart_id, short.sku)) is not None:
        raise errors.CheckoutInProgressError(
            f"Another checkout of this cart holds the {short.sku} it needs: it is still being placed, or it failed "
            f"and the units go back by {until.astimezone(UTC):%H:%M:%S} UTC. Check out again in a moment to learn "
            "whether it placed your order."
        ) from short
    decide(handler.load(cart_id), _dry_run(cart_id, gone))  # checked out since: that refusal, not this one


def _in_one_transaction(
    context: Context,
    cart_id: str,
    discount: c.Discount | None,
    shipping: Shipping | None,
    reservation: Reservation,
    gone: frozenset[str],
) -> Outcome:
    if not reservation.lines:
        return services.checkout(context, cart_id, discount, shipping=shipping, withdrawn=gone)
    with transaction.atomic():
        claims.take_transaction_id()  # several appends (order, stock) in one transaction
        return _order_taking_stock(context, cart_id, discount, shipping, reservation, gone)


def _order_taking_stock(
    context: Context,
    cart_id: str,
    discount: c.Discount | None,
    shipping: Shipping | None,
    reservation: Reservation,
    gone: frozenset[str],
) -> Outcome:
    """`CheckedOut` and the confirmation of its reservation, in the caller's transaction: the units
    leave the stock exactly when the order exists (if the sweep released them first, neither happens)."""
    outcome = services.checkout(context, cart_id, discount, shipping=shipping, withdrawn=gone)
    for order in (e for e in outcome.events if e.type == "CheckedOut"):
        reservations.confirm(reservation, order.data["order_id"], actor=str(context.actor))
    return outcome


def find_coupon(code: str) -> Coupon:
    coupon = Coupon.objects.filter(code__iexact=code.strip(), active=True).first()
    if coupon is None:
        raise CouponError(f"There is no active coupon {code.strip()!r}.")
    if not c.Discount.MIN_PERCENT <= coupon.percent <= c.Discount.MAX_PERCENT:
        # The admin refuses such a coupon (catalog/models.py); one saved before it did is not applied.
        raise CouponError(f"Coupon {coupon.code!r} cannot be used: its discount of {coupon.percent} % is not possible.")
    return coupon


def _checkout_with_one_time_coupon(
    context: Context,
    cart_id: str,
    discount: c.Discount,
    shipping: Shipping | None,
    reservation: Reservation,
    gone: frozenset[str],
) -> Outcome:
    """Claim the coupon for this cart; only an accepted claim lets the order carry it.

    The cart is checked first (yours, open, not empty), so a doomed checkout does
    not take the coupon from someone else. A retry (after a 503) reuses this
    cart's own claim, pending or accepted: claims are idempotent per claimant.
    Lapsed holds of other carts are released first (claims/holds.py). The order
    and the claim's `ClaimUsed` commit together, so a timed release of this
    hold either came first (the order is refused) or never comes. If the
    checkout fails after the claim was accepted, the claim is released.
    """
    try:
        _check_can_check_out(context, cart_id, gone)
    except DomainError:
        # A repeat whose first send committed just after `_first_outcome` looked finds its cart
        # checked out here: it is answered with its first outcome, as the handler answers any repeat.
        command = services.checkout_command(context, cart_id, discount, shipping=shipping, withdrawn=frozenset())
        if replayed := handler.replay(command, context):
            return replayed
        raise
    claimant = str(Principal.cart(cart_id))
    holds.release_expired(keys.stream_for("coupon", discount.code), sparing=claimant)
    ticket = claims.request("coupon", discount.code, claimant)
    claim = claims.wait(ticket.claim_id)
    if claim is None or claim.status == ClaimStatus.PENDING:
        raise CouponPendingError("We could not confirm your coupon yet; please try checking out again in a moment.")
    if claim.status != ClaimStatus.ACCEPTED:
        raise CouponUsedError(f"The coupon {discount.code} has already been used.")
    try:
        with transaction.atomic():
            claims.take_transaction_id()  # several appends (order, stock, use) in one transaction
            outcome = _order_taking_stock(
                replace(context, causation_id=ticket.claim_id), cart_id, discount, shipping, reservation, gone
            )
            for order in (e for e in outcome.events if e.type == "CheckedOut"):
                used_for = f"order:{order.data['order_id']}"
                claims.use(ticket, used_for, str(context.actor), causation_id=str(order.event_id))
            return outcome
    except claims.HoldLostError:
        raise CouponHoldExpiredError(
            f"Your hold on the coupon {discount.code} ran out before the order was placed; check out again."
        ) from None
    except Exception:
        claims.release(ticket, "the checkout it was claimed for failed", actor=str(context.actor))
        raise


def _check_can_check_out(context: Context, cart_id: str, gone: frozenset[str]) -> None:
    """The handler's own access and If-Match checks and the decider's own Checkout rules,
    run dry (nothing is appended): one set of rules, not a copy of them here. A stale
    If-Match is refused here, before the coupon is claimed, so a 412 appends nothing."""
    state = handler.load(cart_id)
    handler.check_access(state, context.actor)
    handler.check_expected_version(state, context)
    decide(state, _dry_run(cart_id, gone))


def _dry_run(cart_id: str, gone: frozenset[str]) -> c.Checkout:
    """A Checkout to run the decider's rules with, before anything is set aside or claimed."""
    return c.Checkout(cart_id=cart_id, at=timezone.now(), order_id="dry-run", withdrawn=gone)
