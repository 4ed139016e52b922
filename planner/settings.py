"""Settings for GPU Cluster Planner, read from environment variables (all listed in .env.example).

SQLite and an embedded Celery broker are the defaults so a fresh checkout just runs; DATABASE_URL and REDIS_URL
switch to PostgreSQL and Redis. With DEBUG off the app refuses to start without a real SECRET_KEY.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"


def _load_dotenv(path: Path) -> None:
    """Read KEY=VALUE lines from .env without overriding variables already set in the environment."""
    if os.environ.get("PLANNER_SKIP_DOTENV") or not path.is_file():
        return
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        os.environ.setdefault(key.strip(), value.strip().strip("'\""))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


_load_dotenv(BASE_DIR / ".env")

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not DEBUG and (
    len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure")
):
    raise ImproperlyConfigured(
        "SECRET_KEY must be set to at least 50 random characters when DEBUG is off "
        "(see .env.example; `make run` writes a local one for you)."
    )
if DEBUG and not SECRET_KEY:
    SECRET_KEY = "django-insecure-local-development-only-" + "x" * 20

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "import_export",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "catalog",
    "planner",
    "planner.fleets",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "planner.middleware.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "planner.middleware_db.DatabaseUnavailableMiddleware",
    "planner.middleware.PrivateCacheMiddleware",
]

ROOT_URLCONF = "planner.urls"
WSGI_APPLICATION = "planner.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Sign-in goes through the lockout (planner/accounts/lockout.py: failures per username, per client address).
AUTHENTICATION_BACKENDS = ["planner.accounts.backends.LockoutModelBackend"]
# Reverse proxies in front of the app that append to X-Forwarded-For (0: use the connection's address and
# ignore the header). The client address of every limit is the one the outermost of them saw.
NUM_PROXIES = int(os.environ.get("NUM_PROXIES", "0"))
# Fair-use limits (planner/ratelimit.py), env RATE_LIMIT_<SCOPE>, e.g. RATE_LIMIT_PREVIEW=120/min.
RATE_LIMITS = {
    scope: os.environ[f"RATE_LIMIT_{scope.upper()}"]
    for scope in (
        "preview",
        "create",
        "evaluate",
        "report",
        "resume",
        "signup",
        "password_reset",
        "login_pair",
        "login_account",
        "login_address",
    )
    if os.environ.get(f"RATE_LIMIT_{scope.upper()}")
}
# Password-reset e-mails: printed on the console in development; set EMAIL_BACKEND and EMAIL_HOST etc. in
# production (https://docs.djangoproject.com/en/5.2/topics/email/#smtp-backend).
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "GPU Cluster Planner <planner@localhost>")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
USE_THOUSAND_SEPARATOR = False

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# Security headers; the secure-transport settings apply when DEBUG is off (production behind TLS).
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
# Sessions are read from the cache (Redis when configured) and written through to the database, so a signed-in
# page costs no session query; the database copy survives a cache flush or a Redis outage.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)

# Celery: Redis when REDIS_URL is set, otherwise an embedded broker (kombu's SQLAlchemy transport on SQLite).
REDIS_URL = os.environ.get("REDIS_URL", "")
VAR_DIR.mkdir(exist_ok=True)
CELERY_BROKER_URL = REDIS_URL or f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}"
CELERY_RESULT_BACKEND = REDIS_URL or f"db+sqlite:///{VAR_DIR / 'celery-results.sqlite3'}"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "900"))
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "840"))
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Survive broker restarts: keep retrying the connection (no limit) instead of exiting, and hand back what a
# worker was running when the connection dropped (acks_late + the claims make a redelivery harmless).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Self-healing (planner/recovery.py): every minute Celery beat re-queues chunks and reports whose worker or
# message was lost and fails those past their attempts. `make run` starts beat; production runs one beat.
CELERY_BEAT_SCHEDULE = {
    "recover-background-work": {
        "task": "planner.recover",
        "schedule": float(os.environ.get("RECOVERY_INTERVAL_S", "60")),
    },
    "prune-old-results": {"task": "planner.prune", "schedule": 24 * 3600.0},
}
# Retention (planner/retention.py) and each user's storage for sweep rows and for PDF reports.
REPORT_RETENTION_DAYS = int(os.environ.get("REPORT_RETENTION_DAYS", "30"))
SWEEP_RETENTION_DAYS = int(os.environ.get("SWEEP_RETENTION_DAYS", "180"))
RESULTS_KEPT_PER_SCENARIO = int(os.environ.get("RESULTS_KEPT_PER_SCENARIO", "50"))
USER_SWEEP_STORAGE_MB = int(os.environ.get("USER_SWEEP_STORAGE_MB", "1024"))
USER_REPORT_STORAGE_MB = int(os.environ.get("USER_REPORT_STORAGE_MB", "500"))
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
REPORT_MAX_ATTEMPTS = int(os.environ.get("REPORT_MAX_ATTEMPTS", "3"))
# With Redis a message held by a dead worker is redelivered after the visibility timeout; keep it above the
# longest chunk (SWEEP_CHUNK_TIME_LIMIT_S).
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {"visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT_S", "3600"))} if REDIS_URL else {}
)

# Sweeps (planner/sweeps): size limit, per-user concurrency, chunk size and time limit, optional queue name.
SWEEP_MAX_CONFIGS = int(os.environ.get("SWEEP_MAX_CONFIGS", "50000000"))
SWEEP_MAX_RUNNING_PER_USER = int(os.environ.get("SWEEP_MAX_RUNNING_PER_USER", "2"))
SWEEP_CHUNK_CONFIGS = int(os.environ.get("SWEEP_CHUNK_CONFIGS", "100000"))
SWEEP_CHUNK_TIME_LIMIT_S = int(os.environ.get("SWEEP_CHUNK_TIME_LIMIT_S", "600"))
# Separate queues so each kind of work has its own workers (`make run`'s worker consumes both).
SWEEP_QUEUE = os.environ.get("SWEEP_QUEUE", "sweeps")
REPORT_QUEUE = os.environ.get("REPORT_QUEUE", "reports")
# PDF reports one user may have waiting for or on a worker at once.
REPORT_MAX_PENDING_PER_USER = int(os.environ.get("REPORT_MAX_PENDING_PER_USER", "3"))
# A saved result's PDF is rendered ahead of the click (on the first visit to its page), at most this many per
# user waiting at once, beside (not within) the limit above; 0 turns it off.
REPORT_PRERENDER_MAX_PENDING_PER_USER = int(os.environ.get("REPORT_PRERENDER_MAX_PENDING_PER_USER", "1"))
SWEEP_BROKER_TIMEOUT_S = float(os.environ.get("SWEEP_BROKER_TIMEOUT_S", "2"))

# Catalog import/export in the admin: model permissions, not staff status alone (the "Catalog editor" group
# has them), and spreadsheet formulae escaped in every export.
IMPORT_EXPORT_IMPORT_PERMISSION_CODE = "change"
IMPORT_EXPORT_EXPORT_PERMISSION_CODE = "view"
IMPORT_EXPORT_ESCAPE_FORMULAE_ON_EXPORT = True

# Catalog CSV import in the admin (catalog/forms.py): largest file accepted, 2 MiB (the seed tables are ~20 KB).
CATALOG_IMPORT_MAX_BYTES = 2 * 1024 * 1024


def _redis_cache_url(broker_url: str) -> str:
    """The cache lives in the Redis database after the broker's, so clearing the cache never drops queued tasks."""
    parts = urlsplit(broker_url)
    db = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{db + 1}"))


# A cache that answers a miss (instead of an error) while Redis is down, so pages keep working.
CACHE_REDIS_URL = os.environ.get("CACHE_REDIS_URL", "") or (_redis_cache_url(REDIS_URL) if REDIS_URL else "")
CACHES = {
    "default": {
        "BACKEND": "planner.cache.FailOpenRedisCache",
        "LOCATION": CACHE_REDIS_URL,
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1.0},
    }
    if CACHE_REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "planner"}
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "planner.api.errors.api_exception_handler",
    # Throttles identify anonymous clients by planner.accounts.client's rule (X-Forwarded-For only via proxies).
    "NUM_PROXIES": NUM_PROXIES,
    "DEFAULT_THROTTLE_RATES": {
        "estimate": os.environ.get("RATE_LIMIT_ESTIMATE", "120/min"),
        "sweep": os.environ.get("RATE_LIMIT_SWEEP", "10/min"),
        "token": os.environ.get("RATE_LIMIT_TOKEN", "20/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "GPU Cluster Planner API",
    "DESCRIPTION": "Size GPU clusters: memory fit, training time, power, PUE and TCO.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Tag order is the order of /api/docs/: what people come for first, the catalog's row operations last.
    "TAGS": [
        {"name": "estimate", "description": "Size one cluster for one workload, nothing saved."},
        {
            "name": "scenarios",
            "description": "Your saved plans: create, change, evaluate again, read results.",
        },
        {
            "name": "sweeps",
            "description": "Search GPU models × node counts × layouts around one of your scenarios.",
        },
        {
            "name": "fleets",
            "description": "Many workloads on mixed GPU pools over time: what to buy each period and where "
            "each workload runs (docs/fleet-contract.md).",
        },
        {"name": "auth", "description": "Get the token every other call sends."},
        {
            "name": "catalog",
            "description": "Hardware, cooling and price rows with their sources (staff write).",
        },
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
