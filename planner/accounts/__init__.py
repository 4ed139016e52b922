"""Accounts: sign-in throttling and lockout, sign-up limits, the account page (password change, API token
rotation) and password reset."""
