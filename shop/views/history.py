"""Cart history: the cart's events in order beside the state they produce, with a
control to step through versions (time travel). The state at version N is the
stream folded up to N (carts.handler.load), exactly what the API's ?at_version=N
returns, and the page links to both API resources.

At any version a learner can also try a command against that state and see
what `decide` would return (shop/what_if.py): nothing is appended. Beside each
`ItemAdded`, the product's price history up to that event's log position (its
`ProductListed` and every `PriceChanged` before it, from the product's own
stream) shows where the price the cart copied came from.
"""

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from carts import handler, streams
from catalog import history as product_history
from claims import queries as claim_queries
from eventlog import store
from eventlog.records import RecordedEvent
from kernel.digits import is_number
from kernel.principal import Principal
from privacy.personal import Revealer

from .. import current, queries, what_if
from ..methods import get_only


@get_only
def current_history(request: HttpRequest) -> HttpResponse:
    row = current.current_cart(request)
    if row is None:
        return redirect("shop:cart")
    return redirect("shop:history", cart_id=row.cart_id)


@get_only
def history(request: HttpRequest, cart_id: str) -> HttpResponse:
    row = queries.owned_cart(current.actor(request), cart_id)
    if row is None:
        raise Http404("No such cart")
    events = store.read_stream(streams.stream_id(cart_id))
    latest = len(events) and events[-1].version
    version = _chosen_version(request.GET.get("version", ""), latest)
    state = handler.load(cart_id, version)
    reveal = Revealer()  # the owner sees their shipping details; the log holds them sealed
    page = {
        "cart_id": cart_id,
        "events": [{"event": e, "data": _shown(reveal.in_data(e.data)), "prices": _prices_before(e)} for e in events],
        "version": version,
        "latest": latest,
        "versions": range(1, latest + 1),
        "state": state,
        "lines": queries.shown_lines(state.lines),
        "previous": version - 1 if version > 1 else None,
        "next": version + 1 if version < latest else None,
        "actions": what_if.ACTIONS,
        "tried": what_if.tried(state, request.GET),
        "asked": request.GET,
        # A one-time coupon is claimed on its own stream; show that story beside the cart's.
        "claim_events": [
            {"event": e, "data": _shown(e.data)}
            for e in claim_queries.events_for_claimant(str(Principal.cart(cart_id)))
        ],
    }
    return render(request, "shop/history.html", page)


def _prices_before(event: RecordedEvent) -> list[dict[str, Any]]:
    """For an ItemAdded: the product's listing and price changes that came before it in the log."""
    if event.type != "ItemAdded":
        return []
    return [
        {"type": p.type, "price": p.data.get("to_price", p.data.get("price")), "position": p.position}
        for p in product_history.prices_before(event.data["sku"], event.position)
    ]


def _shown(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True)


def _chosen_version(text: str, latest: int) -> int:
    """A version from 1 to latest; anything else shows the latest (never an error page)."""
    if is_number(text) and 1 <= int(text) <= latest:
        return int(text)
    return latest
