"""The fault lab's "hold a transaction open" switch: an event appended and not yet committed.

`run_consumers` runs a holder beside its consumers when the lab is enabled. When the switch
is turned on, one holder (whichever takes the switch first, however many processes run one)
adds an item to the lab's own cart inside a transaction and keeps that transaction open
until the switch is turned off, or `LAB_HOLD_MAX_SECONDS` pass. Meanwhile every other
command commits as usual, at higher positions. A gap-safe reader (docs/adr/0002) stops
before the held event instead of skipping it, so every consumer of cart events stands still
and its lag grows; when the holder commits, the consumers read the held event and then the
rest, in position order, each once.

The held append must be the transaction's *first* and only write: that is the fast path of
`eventlog_append`, which lets other appends commit around it. Any write before it would make
it the serial path, which holds every other append until the commit — the shop would freeze
instead of showing the reader wait. So what the holder says about itself (the switch's note)
is written by another thread, on another connection, outside the held transaction; and it
holds an AddToCart, not a checkout, whose stock confirmations would append to several streams.
"""

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import Error as DatabaseError
from django.db import connection, transaction

from carts import services
from carts.handler import Context
from catalog.models import Product
from consumers.faults import Fault, is_on
from consumers.models import FaultSwitch
from kernel.principal import Principal

log = logging.getLogger(__name__)
ACTOR = Principal.process("fault-lab")  # the owner of the held events' cart
POLL_SECONDS = 0.25  # how often the holder looks at its switch, idle or holding
RETRY_SECONDS = 2.0  # after a database error, before it looks again


class Holder:
    """The holder's loop, a supervised thread of `run_consumers` (cartlog/management/commands)."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def __call__(self) -> None:
        while not self.stop.is_set():
            try:
                if take():
                    hold_once(self.stop)
            except DatabaseError as error:
                # The held transaction, if any, rolled back: that order never happened.
                log.warning("fault lab holder: database error (%s); looking again in %.0fs", error, RETRY_SECONDS)
                connection.close()
                self.stop.wait(RETRY_SECONDS)
                continue
            self.stop.wait(POLL_SECONDS)


def take() -> bool:
    """Take the switch, once per time it is turned on (`turn` resets `fired` to 0): only one holder holds."""
    rows = FaultSwitch.objects.filter(name=Fault.HOLD.value, on=True, fired=0)
    return rows.update(fired=1, note="adding the held item") == 1


def hold_once(stop: threading.Event) -> None:
    sku = Product.objects.filter(active=True).order_by("sku").values_list("sku", flat=True).first()
    if sku is None:
        raise LookupError("the fault lab holds an item added to a cart, and the catalog has no product (seed_catalog)")
    cart_id = services.start_cart(Context(actor=ACTOR)).state.cart_id  # committed as usual: only the add is held
    started = time.monotonic()
    with transaction.atomic():
        added = services.add_to_cart(Context(actor=ACTOR), cart_id, sku, 1)
        held = f"{sku} added to cart {cart_id} at position {added.events[-1].position}"
        _aside(f"holding {held} in an open transaction: readers wait before it")
        why = _wait(stop, started)
    _aside(f"released {held} after {time.monotonic() - started:.1f} s ({why})")
    if why != "switched off":
        _aside_off()


def _wait(stop: threading.Event, started: float) -> str:
    """Until the switch is off, the limit is reached or the process stops; reads only (no write here)."""
    limit = float(settings.LAB_HOLD_MAX_SECONDS)
    while True:
        if stop.is_set():
            return "the process is stopping"
        if time.monotonic() - started >= limit:
            return f"LAB_HOLD_MAX_SECONDS ({limit:g} s) reached"
        if not is_on(Fault.HOLD):
            return "switched off"
        stop.wait(POLL_SECONDS)


def _aside(note: str) -> None:
    """Say what the holder does, committed at once by another connection (never in the held transaction)."""
    log.warning("fault lab: %s", note)
    _on_own_connection(lambda: FaultSwitch.objects.filter(name=Fault.HOLD.value).update(note=note[:300]))


def _aside_off() -> None:
    """A hold that ended by itself turns its switch off, so that it does not look held still."""
    _on_own_connection(lambda: FaultSwitch.objects.filter(name=Fault.HOLD.value).update(on=False))


def _on_own_connection(work: Callable[[], object]) -> None:
    # Django gives each thread its own connection: a short thread writes outside this thread's transaction.
    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as error:
            failed.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="fault-lab-note", daemon=True)
    thread.start()
    thread.join()
    if failed:
        log.warning("fault lab holder could not write its note: %s", failed[0])
