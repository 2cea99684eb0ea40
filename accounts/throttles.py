"""How often one client address may try to log in or sign up, and how often one account's
password may be guessed wrong (docs/security.md).

DRF's throttle classes, with the rates read from Django's settings on each check (so
THROTTLE_RATES is env-overridable and tests can lower it). The API's token view and
the shop's login form spend one budget ("login"), the two sign-ups another
("signup"): switching from one door to the other buys an attacker nothing.

The address budgets do not slow a guesser with many addresses. `FailedLogins` counts the
wrong passwords typed for one account name, from any address and through any door
("login_account"); once it is spent, that name is refused until the oldest failure leaves
the window, even with the right password. The price is that anyone can make an account
wait that long by typing wrong passwords for it, so the budget is wide and short.

Every budget is counted by the database (`CountedBudget`): each attempt is a row, counted
there, so that attempts sent at once cannot slip past it as they did past DRF's count, a
list in the cache that each of them read and then wrote back with only itself added.
"""

import hashlib
import math

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from .models import Attempt


class CountedBudget(SimpleRateThrottle):
    """A budget of attempts per key (an address, an account name) counted by the database
    (accounts.models.Attempt), exact under attempts sent at once.

    `take` inserts this attempt's row, then counts every row of the key in the window: its own
    and those of simultaneous attempts, so no more than the budget's attempts ever go on
    (tests/integration/test_login_budget_concurrency.py, test_address_budget_concurrency.py).
    Two attempts at once for the budget's last place may both be refused; neither is counted.
    A refused attempt takes its row back, so refusals do not push the wait further out. Keys
    are hashed, so the table holds no addresses and no names. A rate of None (the setting left
    out) means no budget. DRF parses the rate and keeps the clock (`timer`); its cache is not used.
    """

    scope = ""
    num_requests: int | None  # set by SimpleRateThrottle from the rate (its stubs leave them out)
    duration: int | None

    def __init__(self) -> None:
        super().__init__()
        self.held: Attempt | None = None

    def get_rate(self) -> str | None:
        rate = settings.THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)

    def take(self, key: str) -> int | None:
        """Count this attempt against `key` until `give_back`: None if it may go on, else (counting
        nothing) the seconds until the key's oldest attempt leaves the window."""
        if self.num_requests is None or self.duration is None:
            return None
        now, key_hash = self.timer(), hashlib.sha256(key.encode()).hexdigest()
        Attempt.objects.filter(budget=self.scope, at__lte=now - self.duration).delete()  # every key's
        self.held = Attempt.objects.create(budget=self.scope, key_hash=key_hash, at=now)
        window = Attempt.objects.filter(budget=self.scope, key_hash=key_hash)
        if window.count() <= self.num_requests:
            return None
        self.give_back()
        oldest = window.order_by("at").values_list("at", flat=True).first()
        return max(math.ceil((oldest or now) + self.duration - now), 1)

    def give_back(self) -> None:
        """This attempt is not to count after all (refused; a right password)."""
        if self.held is not None:
            self.held.delete()
            self.held = None


class AttemptThrottle(CountedBudget):
    """Counts attempts per client address; subclasses name the budget. A DRF throttle class."""

    def __init__(self) -> None:
        super().__init__()
        self.retry_after: int | None = None

    def allow_request(self, request: HttpRequest, view: object) -> bool:  # type: ignore[override]
        self.retry_after = self.take(self.get_ident(request))
        return self.retry_after is None

    def wait(self) -> float | None:
        """Seconds until the address's oldest attempt leaves the window (DRF's Retry-After)."""
        return None if self.retry_after is None else float(self.retry_after)

    def get_ident(self, request: HttpRequest) -> str:  # type: ignore[override]
        """The client's address: the connection's, unless NUM_PROXIES says how many proxies in front
        add to X-Forwarded-For. With NUM_PROXIES unset DRF counted by the whole X-Forwarded-For the
        client sent, so a made-up one per attempt escaped every budget."""
        if api_settings.NUM_PROXIES is None:
            return str(request.META.get("REMOTE_ADDR", ""))
        return str(super().get_ident(request))  # type: ignore[arg-type]  # reads headers and META alone


class LoginThrottle(AttemptThrottle):
    scope = "login"


class SignUpThrottle(AttemptThrottle):
    scope = "signup"


def refused_for(throttle_class: type[AttemptThrottle], request: HttpRequest) -> int | None:
    """Spend one attempt: None if allowed, else the seconds to wait (for Retry-After).
    For views outside DRF (the shop's forms)."""
    throttle = throttle_class()
    if throttle.allow_request(request, None):  # type: ignore[arg-type]
        return None
    return max(math.ceil(throttle.wait() or 1), 1)


class AccountResting(Throttled):
    """Raised by the authentication backend: too many wrong passwords for this account name lately.
    A DRF exception, so the API answers 429 with Retry-After; for the pages (the shop's log-in and
    Forget me, the admin's log-in) cartlog/middleware.py: AccountRestingMiddleware draws the 429 page."""

    default_detail = "Too many failed log-ins for this account."
    wait: float | None  # set by Throttled (its stubs leave it out)


class FailedLogins(CountedBudget):
    """Wrong passwords per account name.

    An attempt is counted before its password is checked (`take`) and taken back if the
    password was right (`give_back`), so only failures stay. Counted after the check, from a
    list in the cache, attempts sent at the same moment all passed the check before any was
    counted: eight at once counted as one, eight times the budget for a guesser who sends them
    in parallel. The name is counted as sign-up compares names (claims/keys.py)."""

    scope = "login_account"
