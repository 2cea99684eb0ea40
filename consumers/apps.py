from django.apps import AppConfig


class ConsumersConfig(AppConfig):
    name = "consumers"
