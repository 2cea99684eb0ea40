from django.urls import path

from . import views

urlpatterns = [path("projections", views.ProjectionsView.as_view(), name="projections")]
