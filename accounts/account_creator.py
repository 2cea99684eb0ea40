"""The account creator: a consumer that turns accepted username claims into accounts.

It runs in `run_consumers` beside the validator. Accounts are created here, not
in the request, so a requester that dies after its claim was appended loses
nothing: the claim is decided and the account appears all the same. An accepted
claim with no pending sign-up behind it (or whose name an older account, made
before claims, already has) is released, so no name is held forever by nobody.
A pending sign-up is deleted once its claim is decided either way: a password
hash is kept no longer than it can be used.
"""

from collections.abc import Sequence

from django.contrib.auth import get_user_model

from claims import keys
from claims.services import ClaimTicket, release
from claims.streams import fold
from eventlog import store
from eventlog.records import RecordedEvent
from kernel.principal import Principal

from .models import PendingSignUp

ACTOR = str(Principal.process("account-creator"))

NAME = "account_creator"


class AccountCreator:
    name = NAME
    categories = ("claim",)

    def handle(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            if not event.stream_id.startswith("claim-username-"):
                continue
            if event.type == "ClaimAccepted":
                create_account(event.data["claim_id"], event.stream_id)
            elif event.type == "ClaimRejected":  # its password hash has no use any more
                PendingSignUp.objects.filter(claim_id=event.data["claim_id"]).delete()


def create_account(claim_id: str, stream_id: str) -> None:
    # The claim's key comes from its own ClaimRequested, never from parsing the stream id:
    # a long key is hashed there, and the key is the normalized name, not what was typed.
    ticket = _ticket(claim_id, stream_id)
    pending = PendingSignUp.objects.filter(claim_id=claim_id).first()
    if pending is None:
        if _account_named(ticket.key):
            return  # already created (a redelivered acceptance): nothing to do
        release(ticket, "no sign-up is waiting for this claim", actor=ACTOR)
        return
    if _account_named(ticket.key):
        release(ticket, "an account with this name already exists", actor=ACTOR)
    else:
        get_user_model()(username=pending.username, password=pending.password_hash).save()
    pending.delete()


def _ticket(claim_id: str, stream_id: str) -> ClaimTicket:
    claim = fold(store.read_stream(stream_id))[claim_id]
    return ClaimTicket(claim_id=claim_id, kind=claim.kind, key=claim.key, stream_id=stream_id)


def _account_named(key: str) -> bool:
    """An account whose name normalizes to `key` (case-insensitive candidates, then NFKC-folded)."""
    names = get_user_model().objects.filter(username__iexact=key).values_list("username", flat=True)
    return any(keys.normalize("username", name) == key for name in names)


def consumers() -> list[AccountCreator]:
    return [AccountCreator()]
