"""Play planned sessions through the command layer, one command per transaction, as the shop would.

Commands go through `carts.services` (so through the handler: decide, append,
inline projections) in event-time order across all carts, each at its
simulated time. Slow but faithful; `run_bulk` is the fast path.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from carts import services
from carts.commands import Discount
from carts.errors import CartError, CartNotFoundError
from carts.handler import Context, Outcome

from .plan import interleave
from .shopper import Action, Session


@dataclass(frozen=True, kw_only=True)
class Tally:
    events: int = 0
    rejected: int = 0  # commands the cart refused (none are planned; counted, never hidden)

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(events=self.events + other.events, rejected=self.rejected + other.rejected)


def run_commands(sessions: Sequence[Session]) -> Tally:
    cart_ids: dict[int, str] = {}
    events = rejected = 0
    for session, action in interleave(sessions):
        try:
            outcome = _send(Context(actor=session.owner), cart_ids.get(session.number), action)
        except CartError:
            rejected += 1
            continue
        cart_ids.setdefault(session.number, outcome.state.cart_id)
        events += len(outcome.events)
    return Tally(events=events, rejected=rejected)


def _send(context: Context, cart_id: str | None, action: Action) -> Outcome:
    if action.kind == "start":
        return services.start_cart(context, at=action.at)
    if cart_id is None:
        raise CartNotFoundError("This session's cart was never started.")
    if action.kind == "add":
        return services.add_to_cart(context, cart_id, action.sku, action.quantity, at=action.at)
    if action.kind == "update":
        return services.update_quantity(context, cart_id, action.sku, action.quantity, at=action.at)
    if action.kind == "remove":
        return services.remove_from_cart(context, cart_id, action.sku, at=action.at)
    discount = Discount(code=action.coupon[0], percent=action.coupon[1]) if action.coupon else None
    return services.checkout(context, cart_id, discount, at=action.at)
