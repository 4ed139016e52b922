"""Every URL in the URLconf, walked: anonymous visitors get a redirect to a login page, 401, 403, 404 or 405
everywhere except an explicit list of public pages, and another user reaching for alice's scenario, result or
share link gets 404. No answer to anyone but alice contains her scenario's name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.resolvers import RegexPattern, RoutePattern

from planner import services
from planner.reports.models import Report
from planner.sweeps.models import SweepRun
from tests.planner.conftest import load_catalog, make_scenario

pytestmark = pytest.mark.django_db

SECRET_NAME = "Alice secret plan 7f3a"
CATALOG_ID = "nvidia_h100_sxm5_80gb"
#: URL names anyone may open: they show no user's data.
PUBLIC = {
    "home",  # signed out: the front page (a worked example, the accuracy summary); signed in: the user's plans
    "favicon",
    "login",
    "logout",
    "signup",
    "healthz",
    "engine_accuracy",  # published figures and the engine's error on each: no user data
    "share_view",  # with a bad token: 404 (the test uses one), a good token is the owner's choice to share
    "api_schema",
    "api_docs",
    "api_token",  # answers 400 to wrong credentials
    "admin:login",
    "admin:logout",
    # Password reset: asking for a link and using one need no session and show no user's data.
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
}
ANONYMOUS_OK = {401, 403, 404, 405}
METHODS = ("get", "post")
#: Converters that match database ids, sampled like `int` (planner.api.converters registers `id`).
INT_CONVERTERS = {"id": "int"}


@dataclass(frozen=True)
class Url:
    name: str
    path: str
    params: frozenset[str]


@pytest.fixture
def world(alice) -> dict[str, str]:
    """Alice's scenario with its result and an active share link; samples for every URL parameter."""
    load_catalog()
    scenario = make_scenario(alice, name=SECRET_NAME)
    link = services.share_link_create(scenario=scenario)
    sweep = SweepRun.objects.create(
        owner=alice, scenario=scenario, name=SECRET_NAME, spec={}, engine_version="x"
    )
    report_kind = Report._meta.get_field("kind").choices[0][0]
    report = Report.objects.create(owner=alice, kind=report_kind, title=SECRET_NAME, fingerprint="x")
    samples = {
        "sweeps:int:pk": str(sweep.pk),
        "reports:sweep_pdf|int:pk": str(sweep.pk),
        "reports:sweep_csv|int:pk": str(sweep.pk),
        "api_sweep_detail|int:pk": str(sweep.pk),
        "api_sweep_cancel|int:pk": str(sweep.pk),
        "api_sweep_results|int:pk": str(sweep.pk),
        "reports:report_detail|int:pk": str(report.pk),
        "reports:report_download|int:pk": str(report.pk),
        "reports:report_status|int:pk": str(report.pk),
        "reports:report_retry|int:pk": str(report.pk),
        "str:table": "gpus",
        "int:scenario_pk": str(scenario.pk),
        "int:pk": str(scenario.pk),
        "int:result_id": str(scenario.latest_result_id),
        "int:link_id": str(link.pk),
        "str:token": "not-a-share-token",
        "str:gpu_id": CATALOG_ID,
        "path:object_id": "1",
        "path:content_type_id": "1",
        ":id": "1",
        ":uidb64": "MQ",
        ":token": "not-a-reset-token",
        "drf_format_suffix:format": ".json",
        "re:pk": CATALOG_ID,
        "re:format": "json",
        "re:app_label": "planner",
        "re:url": "no-such-admin-page/",
    }
    return samples


def _route_path(pattern: RoutePattern, samples: dict[str, str], namespace: str = "", name: str = "") -> str:
    def fill(match: re.Match) -> str:
        converter = INT_CONVERTERS.get(match.group(1) or "", match.group(1) or "")
        key = f"{converter}:{match.group(2)}"
        # Most specific first: "reports:sweep_pdf|int:pk", then "sweeps:int:pk", then "int:pk" (a scenario).
        for candidate in (f"{name}|{key}", f"{namespace}{key}", key):
            if candidate in samples:
                return samples[candidate]
        raise AssertionError(f"add a sample value for <{key}> ({name or namespace}) to this test")

    return re.sub(r"<(?:(\w+):)?(\w+)>", fill, str(pattern))


def _regex_path(pattern: RegexPattern, samples: dict[str, str], namespace: str = "", name: str = "") -> str:
    def fill(match: re.Match) -> str:
        key = f"re:{match.group(1)}"
        assert key in samples, f"add a sample value for (?P<{match.group(1)}>) to this test"
        return samples[key]

    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", fill, str(pattern))
    return text.replace("^", "").replace("$", "").replace("/?", "/").replace("\\.", ".")


def _params(pattern: RoutePattern | RegexPattern) -> set[str]:
    if isinstance(pattern, RegexPattern):
        return set(pattern.regex.groupindex)
    return set(pattern.converters)


def urls(samples: dict[str, str], patterns=None, prefix: str = "/", namespace: str = "") -> Iterator[Url]:
    """Every URL of the URLconf as a concrete path (with sample parameters) and its full name."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        fill = _regex_path if isinstance(entry.pattern, RegexPattern) else _route_path
        is_resolver = isinstance(entry, URLResolver)
        inner = f"{namespace}{entry.namespace}:" if is_resolver and entry.namespace else namespace
        full_name = "" if is_resolver or not entry.name else f"{namespace}{entry.name}"
        part = fill(entry.pattern, samples, inner, full_name)
        if is_resolver:
            yield from urls(samples, entry.url_patterns, prefix + part, inner)
        elif isinstance(entry, URLPattern):
            name = f"{namespace}{entry.name}" if entry.name else f"{namespace}<unnamed {entry.pattern}>"
            yield Url(name=name, path=prefix + part, params=frozenset(_params(entry.pattern)))


def _redirects_to_login(response) -> bool:
    login_paths = {reverse(settings.LOGIN_URL), reverse("admin:login")}
    return response.status_code == 302 and response["Location"].split("?")[0] in login_paths


def test_the_walk_covers_every_url(world):
    found = list(urls(world))
    assert len(found) > 80
    for url in found:
        resolve(url.path.split("?")[0])  # every generated path routes somewhere
    names = {u.name for u in found}
    assert {"scenario_detail", "api_estimate", "api-catalog-gpus-detail", "admin:index"} <= names


def test_anonymous_visitors_see_nothing_but_public_pages(world):
    client = Client()
    leaks = []
    for url in urls(world):
        for method in METHODS:
            response = getattr(client, method)(url.path)
            body = response.content.decode(errors="replace")
            if SECRET_NAME in body:
                leaks.append(f"{method.upper()} {url.path} shows alice's scenario")
            if url.name in PUBLIC:
                continue
            if response.status_code not in ANONYMOUS_OK and not _redirects_to_login(response):
                leaks.append(f"{method.upper()} {url.path} ({url.name}) -> {response.status_code}")
    assert not leaks, "\n".join(leaks)


def test_public_pages_answer_anonymous_visitors(world):
    client = Client()
    for name in ("login", "signup", "healthz", "engine_accuracy", "api_schema", "api_docs", "admin:login"):
        assert client.get(reverse(name)).status_code == 200, name
    assert client.get(reverse("share_view", args=["not-a-share-token"])).status_code == 404


def test_another_user_gets_404_for_alices_scenario_results_and_links(world, bob, alice):
    owned = [u for u in urls(world) if not u.name.startswith("admin:") and u.params & {"pk", "scenario_pk"}]
    owned = [u for u in owned if not u.name.startswith("api-catalog")]
    assert {u.name for u in owned} >= {
        "scenario_detail",
        "scenario_result",
        "scenario_delete",
        "share_revoke",
        "api_scenario_detail",
        "api_scenario_result",
        "sweeps:detail",
        "sweeps:create",
        "reports:scenario_pdf",
        "reports:sweep_pdf",
        "reports:report_detail",
        "reports:report_status",
        "api_sweep_detail",
        "api_sweep_cancel",
        "api_sweep_results",
    }
    client = Client()
    client.force_login(bob)
    problems = []
    for url in owned:
        for method in METHODS:
            response = getattr(client, method)(url.path)
            if response.status_code not in (404, 405) or SECRET_NAME in response.content.decode():
                problems.append(f"bob {method.upper()} {url.path} ({url.name}) -> {response.status_code}")
    assert not problems, "\n".join(problems)
    owner = Client()
    owner.force_login(alice)
    assert SECRET_NAME in owner.get(reverse("scenario_detail", args=[world["int:pk"]])).content.decode()


def test_a_non_staff_user_cannot_open_the_admin(world, bob):
    client = Client()
    client.force_login(bob)
    for url in urls(world):
        if url.name.startswith("admin:") and url.name not in PUBLIC:
            response = client.get(url.path)
            assert response.status_code in ANONYMOUS_OK or _redirects_to_login(response), url


HUGE_ID = "9" * 20  # past a 64-bit integer: SQLite raises OverflowError, PostgreSQL a DataError


def test_ids_past_the_database_range_are_404_not_500(world, alice):
    """`<int:pk>` matches any number of digits; a foreign-key filter with such a number overflows SQLite."""
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    failures = []
    for url in urls({**world, **{k: HUGE_ID for k, v in world.items() if v.isdigit()}}):
        if HUGE_ID not in url.path:
            continue
        for method in METHODS:
            status = getattr(client, method)(url.path).status_code
            if status >= 500:
                failures.append(f"{method.upper()} {url.path} ({url.name}) -> {status}")
    assert not failures, "\n".join(failures)


#: POSTs that need no CSRF token, and why. (The API's session-authenticated calls do check it: DRF enforces CSRF
#: for session authentication, and this walk posts with alice's session cookie.)
CSRF_EXEMPT: dict[str, str] = {
    "api_token": "takes a username and password, not the session; a forged post cannot read the token it returns",
}


def test_every_post_without_a_csrf_token_is_refused(world, alice):
    """Signed in (session cookie) but without the CSRF token: every POST is refused before it can change state."""
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(alice)
    accepted = []
    for url in urls(world):
        response = client.post(url.path)
        refused_for_csrf = response.status_code == 403 and b"CSRF" in response.content
        if not (refused_for_csrf or response.status_code == 405) and url.name not in CSRF_EXEMPT:
            accepted.append(f"POST {url.path} ({url.name}) -> {response.status_code}")
    assert not accepted, "\n".join(accepted)
