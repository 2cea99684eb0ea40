"""How often one client address may try to log in or sign up, and how often one account's
password may be guessed wrong (docs/security.md).

DRF's throttles, with the rates read from Django's settings on each check (so
THROTTLE_RATES is env-overridable and tests can lower it). The API's token view and
the shop's login form spend one budget ("login"), the two sign-ups another
("signup"): switching from one door to the other buys an attacker nothing. Their
counters live in the default cache, which settings make shared by every worker.

The address budgets do not slow a guesser with many addresses. `FailedLogins` counts the
wrong passwords typed for one account name, from any address and through any door
("login_account"); once it is spent, that name is refused until the oldest failure leaves
the window, even with the right password. The price is that anyone can make an account
wait that long by typing wrong passwords for it, so the budget is wide and short. Its
attempts are rows in the database, counted there, so that attempts sent at once cannot
slip past it as they could past a count in the cache.
"""

import hashlib
import math

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from .models import FailedLogin


class AttemptThrottle(SimpleRateThrottle):
    """Counts attempts per client address; subclasses name the budget."""

    scope = ""

    def get_rate(self) -> str | None:
        return str(settings.THROTTLE_RATES[self.scope])

    def get_ident(self, request: HttpRequest) -> str:  # type: ignore[override]
        """The client's address: the connection's, unless NUM_PROXIES says how many proxies in front
        add to X-Forwarded-For. With NUM_PROXIES unset DRF counted by the whole X-Forwarded-For the
        client sent, so a made-up one per attempt escaped every budget."""
        if api_settings.NUM_PROXIES is None:
            return str(request.META.get("REMOTE_ADDR", ""))
        return str(super().get_ident(request))  # type: ignore[arg-type]  # reads headers and META alone

    def get_cache_key(self, request: HttpRequest, view: object) -> str:  # type: ignore[override]
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


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


class FailedLogins(SimpleRateThrottle):
    """Wrong passwords per account name, counted by the database (accounts.models.FailedLogin).

    An attempt is counted before its password is checked (`take`) and taken back if the
    password was right (`give_back`), so only failures stay. Counted after the check, from a
    list in the cache (as DRF's throttles count), attempts sent at the same moment all passed
    the check before any was counted, and each wrote back the list it had read with only
    itself added: eight at once counted as one, eight times the budget for a guesser who sends
    them in parallel. Here each attempt inserts its own row and then counts every row of the
    window, its own and those of simultaneous attempts, so no more than the budget's attempts
    ever reach a password (tests/integration/test_login_budget_concurrency.py). Two attempts at
    once for the budget's last place may both be refused; neither is counted.

    The name is counted as sign-up compares names (claims/keys.py), hashed so that the table
    holds no names. A rate of None (the setting left out) means no budget. DRF parses the rate
    and keeps the clock (`timer`); its cache is not used."""

    scope = "login_account"
    num_requests: int | None  # set by SimpleRateThrottle from the rate (its stubs leave them out)
    duration: int | None

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name_hash = hashlib.sha256(name.encode()).hexdigest()
        self.held: FailedLogin | None = None

    def get_rate(self) -> str | None:
        rate = settings.THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)

    def take(self) -> int | None:
        """Count this attempt as a failure until `give_back`: None if it may check its password,
        else (counting nothing) the seconds until the name's oldest failure leaves the window."""
        if self.num_requests is None or self.duration is None:
            return None
        now = self.timer()
        FailedLogin.objects.filter(at__lte=now - self.duration).delete()  # every name's, out of the window
        self.held = FailedLogin.objects.create(name_hash=self.name_hash, at=now)
        window = FailedLogin.objects.filter(name_hash=self.name_hash)
        if window.count() <= self.num_requests:
            return None
        self.give_back()
        oldest = window.order_by("at").values_list("at", flat=True).first()
        return max(math.ceil((oldest or now) + self.duration - now), 1)

    def give_back(self) -> None:
        """The password was right (or never checked): this attempt is no failure."""
        if self.held is not None:
            self.held.delete()
            self.held = None
