"""Prepare a benchmark database for the HTTP benchmark; prints {"token", "skus"} as JSON.

Run as `python -m bench.http_fixture` with DATABASE_URL and
DJANGO_SETTINGS_MODULE=bench.settings set (bench/http.py does).
"""

import json

import django


def main() -> int:
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from knox.models import AuthToken

    from catalog.models import Product

    call_command("migrate", verbosity=0, interactive=False)
    call_command("seed_catalog", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench-shopper")
    _, token = AuthToken.objects.create(user=user, expiry=None)  # a benchmark's token: no expiry
    skus = list(Product.objects.filter(active=True).order_by("sku").values_list("sku", flat=True))
    print(json.dumps({"token": token, "skus": skus}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
