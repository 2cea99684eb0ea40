"""The web shop's routes (everything outside /api/)."""

from django.urls import URLPattern, URLResolver, path

from .views import account, cart, catalog, checkout, forget, history

app_name = "shop"
urlpatterns: list[URLPattern | URLResolver] = [
    path("", catalog.home, name="home"),
    path("products/<str:sku>/", catalog.product, name="product"),
    path("products/<str:sku>/add/", catalog.add, name="add"),
    path("cart/", cart.cart, name="cart"),
    path("cart/lines/<str:sku>/update/", cart.update, name="update"),
    path("cart/lines/<str:sku>/remove/", cart.remove, name="remove"),
    path("cart/switch/", cart.switch, name="switch"),
    path("cart/history/", history.current_history, name="current-history"),
    path("carts/<str:cart_id>/history/", history.history, name="history"),
    path("checkout/", checkout.checkout, name="checkout"),
    path("orders/", checkout.orders, name="orders"),
    path("orders/<str:cart_id>/", checkout.order, name="order"),
    path("signup/", account.signup, name="signup"),
    path("signup/pending/", account.signup_pending, name="signup-pending"),
    path("login/", account.login_view, name="login"),
    path("logout/", account.logout_view, name="logout"),
    path("account/", forget.account, name="account"),
    path("account/forget/", forget.forget_me, name="forget-me"),
]
