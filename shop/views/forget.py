"""The account page and "Forget me": a confirmation step (the password), then
accounts.forgetting.forget_account.

Forgetting erases the shipping details of every order (they read `[erased]`),
closes the account and logs the shopper out; the orders themselves stay.
"""

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.forgetting import forget_account

from ..forms import ForgetMeForm
from ..methods import get_only, get_or_post


@login_required
@get_only
def account(request: HttpRequest) -> HttpResponse:
    return render(request, "shop/account.html")


@login_required
@get_or_post
def forget_me(request: HttpRequest) -> HttpResponse:
    form = ForgetMeForm(request.POST or None, request=request)
    if request.method == "POST" and form.is_valid():  # a resting account: cartlog/middleware.py answers 429
        forget_account(request.user)  # type: ignore[arg-type]
        logout(request)
        messages.success(request, "Your personal data is erased and your account is closed.")
        return redirect("shop:home")
    status = 400 if request.method == "POST" else 200
    return render(request, "shop/forget_me.html", {"form": form}, status=status)
