"""Where an order goes: the shipping details a checkout may carry, and their limits.

They are personal data: `carts.services.checkout` seals them for the person who
checks out (privacy/), and `CheckedOut` carries only the sealed box. The API's
and the shop's forms check these limits, with Django's one email validator.
"""

from dataclasses import asdict, dataclass

MAX_NAME = 100
MAX_EMAIL = 254
MAX_ADDRESS = 500


@dataclass(frozen=True, kw_only=True)
class Shipping:
    name: str
    email: str
    address: str

    def fields(self) -> dict[str, str]:
        return asdict(self)
