"""`createsuperuser`, refusing a name an account already holds in another spelling.

Sign-up makes a name unique whatever its case (claims/keys.py); Django's own command
checks the exact spelling only, so `bobby` could be made beside `Bobby`. This is
Django's command with that one check added (accounts comes before django.contrib.auth
in INSTALLED_APPS, so its command is the one `manage.py` runs).
"""

from typing import Any

from django.contrib.auth.management.commands import createsuperuser

from accounts.backends import stored_name


class Command(createsuperuser.Command):
    def _validate_username(self, username: str, verbose_field_name: str, database: str) -> Any:
        if username:
            held = stored_name(username)
            if held != username:
                return f"Error: That {verbose_field_name} is already taken, as {held!r} (whatever its case)."
        return super()._validate_username(username, verbose_field_name, database)  # type: ignore[misc]  # not in the stubs
