"""The shop's forms. They check only the shape of the input (a whole number, a
non-empty name); the cart's rules (1 to 99, active products) stay in the decider,
so the shop and the API refuse the same things with the same words.
"""

from typing import Any

from django import forms
from django.contrib.auth import authenticate
from django.http import HttpRequest

from carts import shipping
from carts.decider import MAX_LINE_QUANTITY


class AsciiIntegerField(forms.IntegerField):
    """A whole number written in ASCII digits. Django's IntegerField takes any Unicode digit
    (int("٣") is 3); the API refuses those (docs/security.md), and so does the shop."""

    def to_python(self, value: Any) -> int | None:
        if isinstance(value, str) and not value.strip().isascii():
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


def _quantity_field(low: int) -> forms.IntegerField:
    return AsciiIntegerField(
        label="Quantity",
        error_messages={"invalid": "Enter a whole number.", "required": "Enter a quantity."},
        widget=forms.NumberInput(attrs={"min": low, "max": MAX_LINE_QUANTITY, "class": "qty", "inputmode": "numeric"}),
    )


class AddToCartForm(forms.Form):
    quantity = _quantity_field(low=1)


class CartLineForm(forms.Form):
    """Update or remove one line; `version` is the cart version the shopper saw."""

    quantity = _quantity_field(low=0)
    cart_id = forms.CharField(widget=forms.HiddenInput)
    version = AsciiIntegerField(widget=forms.HiddenInput)


class CartVersionForm(forms.Form):
    cart_id = forms.CharField(widget=forms.HiddenInput)
    version = AsciiIntegerField(widget=forms.HiddenInput)


SHIPPING_FIELDS = {"ship_name": "name", "ship_email": "email", "ship_address": "address"}


class CheckoutForm(CartVersionForm):
    """Shipping details are optional, but all three or none (the API's limits, carts/shipping.py).

    `request_id` is the order's Idempotency-Key, new each time the page is drawn: the same form
    sent twice (a double click, or again from the browser's history) places one order and shows
    it both times. A form without one (a page drawn before it existed) is sent without a key."""

    request_id = forms.RegexField(regex=r"^[0-9a-f]{32}$", required=False, widget=forms.HiddenInput)
    coupon = forms.CharField(label="Coupon code (optional)", required=False, max_length=40)
    ship_name = forms.CharField(label="Name", required=False, max_length=shipping.MAX_NAME)
    ship_email = forms.EmailField(label="Email", required=False, max_length=shipping.MAX_EMAIL)
    ship_address = forms.CharField(
        label="Address", required=False, max_length=shipping.MAX_ADDRESS, widget=forms.Textarea(attrs={"rows": 3})
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        given = {name for name in SHIPPING_FIELDS if data.get(name)}
        if given and given != SHIPPING_FIELDS.keys():
            for name in SHIPPING_FIELDS.keys() - given:
                if name not in self.errors:
                    self.add_error(name, "Give all three shipping details, or none.")
        return data

    def full_clean(self) -> None:
        super().full_clean()
        # Drawn again with an error, the page starts with the keyboard on the first shipping field
        # that has one (the template does the same for the fields it writes out itself): without
        # JavaScript the page is a new one, and its focus would start at the top.
        wrong = [name for name in SHIPPING_FIELDS if name in self.errors]
        if wrong:
            self.fields[wrong[0]].widget.attrs["autofocus"] = True

    def shipping(self) -> shipping.Shipping | None:
        data = self.cleaned_data
        if not data.get("ship_name"):
            return None
        return shipping.Shipping(**{field: data[name] for name, field in SHIPPING_FIELDS.items()})


class ForgetMeForm(forms.Form):
    """The confirmation step: the shopper's password. It asked for the username before, which the
    page itself shows: anyone at a browser left signed in could type it and erase the account.
    The password is checked by the authentication backend, so a wrong one spends the account's
    budget of wrong passwords (accounts/throttles.py: FailedLogins), as at a log-in: this form is
    no way round that budget. A spent budget raises AccountResting (cartlog/middleware.py answers 429)."""

    password = forms.CharField(
        label="Your password, to confirm",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_password(self) -> str:
        typed: str = self.cleaned_data["password"]
        me = self.request.user
        user = authenticate(self.request, username=me.get_username(), password=typed)
        if user is None or user.pk != me.pk:
            raise forms.ValidationError("That is not your password; nothing was erased.")
        return typed


class SignUpForm(forms.Form):
    username = forms.CharField(
        label="Username", max_length=150, widget=forms.TextInput(attrs={"autocomplete": "username"})
    )
    password = forms.CharField(
        label="Password", widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}), strip=False
    )
