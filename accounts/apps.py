from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import pre_save


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from .tokens import revoke_on_new_password

        pre_save.connect(revoke_on_new_password, sender=settings.AUTH_USER_MODEL, dispatch_uid="revoke-on-new-password")
