"""What `seed_catalog` does, step by step: each step appends only what is missing,
so seeding twice appends nothing. A package with more to seed (stock, say) hands
its step in at start (`cartlog/bootstrap.py` calls `add_step`): the command runs
the steps in order, each in its own transaction."""

from collections.abc import Callable
from decimal import Decimal

from .errors import ProductAlreadyListedError
from .models import Coupon
from .seed_data import COUPONS, INACTIVE, PRODUCTS
from .services import is_listed, list_existing_products, list_product

ACTOR = "seed_catalog"

Step = Callable[[], str]  # does its part; says what it did, for the command's output


def adopt_existing_products() -> str:
    """Rows from before the catalog was a log get their ProductListed first, as they are."""
    return f"{len(list_existing_products(actor=ACTOR))} existing products put on the log"


def list_demo_products() -> str:
    listed = 0
    for sku, name, category, price, description in PRODUCTS:
        if is_listed(sku):
            continue  # listed before: staff may have changed it since, and the seed does not undo that
        try:
            list_product(
                sku,
                name=name,
                category=category,
                price=Decimal(price),
                description=description,
                active=sku not in INACTIVE,
                actor=ACTOR,
            )
        except ProductAlreadyListedError:
            continue  # a concurrent seed listed it first: the same outcome
        listed += 1
    return f"{listed} of {len(PRODUCTS)} demo products listed"


def seed_coupons() -> str:
    for code, percent, once in COUPONS:
        Coupon.objects.update_or_create(code=code, defaults={"percent": percent, "once": once})
    return f"{len(COUPONS)} coupons"


STEPS: list[Step] = [adopt_existing_products, list_demo_products, seed_coupons]


def add_step(step: Step) -> None:
    """Run `step` after the catalog's own (once, however often start-up calls this)."""
    if step not in STEPS:
        STEPS.append(step)
