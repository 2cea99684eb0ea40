from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "privacy"
