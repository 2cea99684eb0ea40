"""Rebuilding `claims`, the claim validator's state, while the validator is behind the log.

`claims` has no consumer of its own name: the validator (`claim_validator`) keeps it. What its live
table holds is what the validator's checkpoint says, and a swap leaves that checkpoint alone: the
validator folds on from where it stands and still decides the requests after it. Both backends.
"""

import pytest

from claims import services as claim_services
from claims.models import Claim
from claims.validator import NAME as VALIDATOR
from claims.validator import Validator
from consumers import checkpoints, runner
from consumers.models import Checkpoint
from consumers.transports import TableTransport
from rebuilds import service
from tests.log_helpers import wait_until_readable

pytestmark = pytest.mark.django_db(transaction=True)


def decide_every_claim() -> None:
    wait_until_readable()
    runner.drain(Validator(), TableTransport())


@pytest.fixture
def used_coupon_the_validator_has_not_read() -> claim_services.ClaimTicket:
    """WELCOME10 accepted for cart:1 and decided; then used at a checkout, which the validator has not read yet."""
    ticket = claim_services.request("coupon", "WELCOME10", claimant="cart:1")
    claim_services.request("coupon", "SPRING5", claimant="cart:2")
    decide_every_claim()
    claim_services.use(ticket, used_for="order-1", actor="cart:1")
    assert Claim.objects.get(claim_id=ticket.claim_id).status == "accepted"  # the validator's fold is behind
    return ticket


def test_verify_compares_claims_at_the_validators_position_not_at_a_row_of_its_own(
    used_coupon_the_validator_has_not_read: claim_services.ClaimTicket,
) -> None:
    """The live table lacks the ClaimUsed the validator has not read; the shadow has it. The verify
    brings the live side to the shadow's position (undone after): no difference. It read the live
    table as holding nothing before, and reported the used coupon as a difference."""
    validator_was = checkpoints.position(VALIDATOR)

    outcome = service.rebuild("claims", verify=True, batch_size=50)

    assert outcome.status == "verified"
    assert outcome.differences == []
    assert Claim.objects.get(claim_id=used_coupon_the_validator_has_not_read.claim_id).status == "accepted"
    assert checkpoints.position(VALIDATOR) == validator_was


def test_a_swap_of_claims_leaves_the_validators_position_and_makes_no_checkpoint_of_its_own(
    used_coupon_the_validator_has_not_read: claim_services.ClaimTicket,
) -> None:
    """A request the validator has not decided is pending in the new table too: the validator,
    still at its own position, decides it after the swap. The swap used to write a `claims`
    checkpoint row nothing advanced, which a later verify read as the live table's position."""
    late = claim_services.request("coupon", "SUMMER20", claimant="cart:3")
    validator_was = checkpoints.position(VALIDATOR)

    outcome = service.rebuild("claims", batch_size=50)

    assert outcome.status == "swapped"
    assert checkpoints.position(VALIDATOR) == validator_was
    assert not Checkpoint.objects.filter(name="claims").exists()
    assert Claim.objects.get(claim_id=used_coupon_the_validator_has_not_read.claim_id).status == "used"
    assert Claim.objects.get(claim_id=late.claim_id).status == "pending"

    decide_every_claim()

    assert Claim.objects.get(claim_id=late.claim_id).status == "accepted"
    assert service.rebuild("claims", verify=True, batch_size=50).status == "verified"
