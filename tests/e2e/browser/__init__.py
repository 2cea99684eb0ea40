"""Playwright in Debian's Chromium (never a downloaded browser) for the shop's end-to-end tests."""
