"""Who acts: the one value type for a principal, built and parsed here only.

The log stores a principal as text, `<kind>:<id>` (`user:42`, `anon:<token>`,
`cart:<cart id>`, `signup:<claim id>`); a process acting for itself (the
account creator) is stored by its bare name. Carts are owned by users and
anonymous visitors; carts and pending sign-ups claim coupons and usernames.
"""

from dataclasses import dataclass
from enum import StrEnum


class PrincipalKind(StrEnum):
    USER = "user"
    VISITOR = "anon"
    CART = "cart"
    SIGNUP = "signup"
    PROCESS = "process"


@dataclass(frozen=True)
class Principal:
    kind: PrincipalKind
    id: str

    def __str__(self) -> str:
        return self.id if self.kind is PrincipalKind.PROCESS else f"{self.kind.value}:{self.id}"

    @classmethod
    def user(cls, user_id: int | str) -> "Principal":
        return cls(PrincipalKind.USER, str(user_id))

    @classmethod
    def visitor(cls, token: str) -> "Principal":
        return cls(PrincipalKind.VISITOR, token)

    @classmethod
    def cart(cls, cart_id: str) -> "Principal":
        return cls(PrincipalKind.CART, cart_id)

    @classmethod
    def signup(cls, claim_id: str) -> "Principal":
        return cls(PrincipalKind.SIGNUP, claim_id)

    @classmethod
    def process(cls, name: str) -> "Principal":
        return cls(PrincipalKind.PROCESS, name)

    @classmethod
    def parse(cls, text: str) -> "Principal":
        """The principal a stored text names; a text without a known kind is a process."""
        kind, sep, rest = text.partition(":")
        if sep and kind in _KINDS_WITH_PREFIX:
            return cls(PrincipalKind(kind), rest)
        return cls(PrincipalKind.PROCESS, text)


_KINDS_WITH_PREFIX = {k.value for k in PrincipalKind if k is not PrincipalKind.PROCESS}
