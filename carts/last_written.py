"""The carts as this process last wrote them: a command's first guess, proved by its append.

A command is decided against the cart's current state, and reading that state is one
of a command's two round trips. But the process that wrote a cart last already holds
its state, and the append checks the version it expects (invariant 2): so the handler
decides against the state it remembers here and appends, one round trip, and the
append itself proves the guess. If another process (or thread) wrote the cart since,
the append fails and brings back the events it missed (`catch_up`); the handler folds
them in and decides again: two round trips, as many as a read and a write.

Only what the append can prove is taken from here: a refusal, or a command that
would change nothing, is never answered from a remembered state (it writes
nothing, so nothing checks it); the handler reads the cart and decides again.
Only committed states are remembered (a write in its own transaction, which has
committed when the statement returns). A bounded LRU: forgetting costs a read.

The log is the truth, and this is only a guess about it: after a database is restored
to an earlier point, restart the processes (docs/deployment.md), as for every other
in-process memory of the log (read caches, checkpoints).
"""

import threading
from collections import OrderedDict

from .decider import CartState

DEFAULT_SIZE = 10_000  # carts; a state is a few hundred bytes to a few kilobytes


class LastWritten:
    """A thread-safe LRU of CartState by cart id (the web tier's threads share one)."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._states: OrderedDict[str, CartState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, cart_id: str) -> CartState | None:
        with self._lock:
            state = self._states.get(cart_id)
            if state is not None:
                self._states.move_to_end(cart_id)
            return state

    def remember(self, state: CartState) -> None:
        """`state` was committed: the next command on the cart is first decided against it."""
        if self.size <= 0:
            return
        with self._lock:
            known = self._states.get(state.cart_id)
            if known is not None and known.version > state.version:
                return  # another thread of this process wrote a newer one meanwhile
            self._states[state.cart_id] = state
            self._states.move_to_end(state.cart_id)
            if len(self._states) > self.size:
                self._states.popitem(last=False)

    def forget(self, cart_id: str) -> None:
        with self._lock:
            self._states.pop(cart_id, None)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()
