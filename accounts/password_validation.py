"""A password validator Django lacks: eight spaces pass MinimumLengthValidator, so
the length that counts here is of the characters that are not whitespace."""

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError


class NotBlankValidator:
    def __init__(self, min_length: int = 8) -> None:
        self.min_length = min_length

    def validate(self, password: str, user: AbstractBaseUser | None = None) -> None:
        if len("".join(password.split())) < self.min_length:
            raise ValidationError(self.get_help_text(), code="password_mostly_blank")

    def get_help_text(self) -> str:
        return f"Your password must contain at least {self.min_length} characters that are not spaces."
