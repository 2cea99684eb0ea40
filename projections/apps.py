from django.apps import AppConfig


class ProjectionsConfig(AppConfig):
    name = "projections"
