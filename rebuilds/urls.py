from django.urls import path

from . import views

app_name = "rebuilds"
urlpatterns = [
    path("", views.rebuilds_page, name="page"),
    path("<str:name>/start/", views.start_rebuild, name="start"),
]
