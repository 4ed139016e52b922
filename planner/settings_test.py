"""Settings for the test suite: production settings (DEBUG off) with a throw-away key and no TLS redirect.

DATABASE_URL and REDIS_URL pass through, so CI runs the same suite against PostgreSQL and Redis.
"""

import os
import secrets

os.environ["PLANNER_SKIP_DOTENV"] = "1"
os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
os.environ["DEBUG"] = "0"
os.environ["SECURE_SSL_REDIRECT"] = "0"
os.environ["SESSION_COOKIE_SECURE"] = "0"
os.environ["CSRF_COOKIE_SECURE"] = "0"

from planner.settings import *  # noqa: E402,F403

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
SECURE_HSTS_SECONDS = 0
STATIC_ROOT = None  # tests serve static files through the finders; nothing is collected
