"""Settings for the test suite: production settings (DEBUG off) with a throw-away key and no TLS redirect.

DATABASE_URL and REDIS_URL pass through, so CI runs the same suite against PostgreSQL and Redis.
"""

import os
import secrets
from urllib.parse import urlsplit, urlunsplit

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

# Parallel test workers (pytest-xdist) each get their own Redis cache database: a test that clears the cache
# must not empty another worker's (its cached sessions and fragments) half-way through a test.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if CACHE_REDIS_URL and _XDIST_WORKER.startswith("gw"):  # noqa: F405
    _parts = urlsplit(CACHE_REDIS_URL)  # noqa: F405 (CACHE_REDIS_URL from the star import)
    _db = int(_parts.path.strip("/") or 0) + int(_XDIST_WORKER.removeprefix("gw"))
    CACHE_REDIS_URL = urlunsplit(_parts._replace(path=f"/{_db}"))
    CACHES["default"]["LOCATION"] = CACHE_REDIS_URL  # noqa: F405
