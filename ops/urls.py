from django.urls import path

from . import views

app_name = "ops"
urlpatterns = [
    path("metrics", views.metrics, name="metrics"),
    path("health/live", views.live, name="live"),
    path("health/ready", views.ready, name="ready"),
]
