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

from claims.services import ClaimTicket, release
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
    pending = PendingSignUp.objects.filter(claim_id=claim_id).first()
    User = get_user_model()
    if pending is None:
        if User.objects.filter(username__iexact=_username_from(stream_id)).exists():
            return  # already created (a redelivered acceptance): nothing to do
        _release(claim_id, stream_id, "no sign-up is waiting for this claim")
        return
    if User.objects.filter(username__iexact=pending.username).exists():
        _release(claim_id, stream_id, "an account with this name already exists")
    else:
        user = User(username=pending.username, password=pending.password_hash)
        user.save()
    pending.delete()


def _username_from(stream_id: str) -> str:
    from urllib.parse import unquote

    return unquote(stream_id.removeprefix("claim-username-"))


def _release(claim_id: str, stream_id: str, reason: str) -> None:
    ticket = ClaimTicket(claim_id=claim_id, kind="username", key=_username_from(stream_id), stream_id=stream_id)
    release(ticket, reason, actor=ACTOR)


def consumers() -> list[AccountCreator]:
    return [AccountCreator()]
