from django.urls import path

from . import views

urlpatterns = [
    path("carts", views.CartsView.as_view(), name="carts"),
    path("carts/<str:cart_id>", views.CartView.as_view(), name="cart"),
    path("carts/<str:cart_id>/events", views.CartEventsView.as_view(), name="cart-events"),
    path("carts/<str:cart_id>/items", views.CartItemsView.as_view(), name="cart-items"),
    path("carts/<str:cart_id>/items/<str:sku>", views.CartItemView.as_view(), name="cart-item"),
    path("carts/<str:cart_id>/checkout", views.CheckoutView.as_view(), name="cart-checkout"),
]
