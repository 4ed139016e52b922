"""Public catalog pages for signed-in users (placeholder until the catalog pages land)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_required
def gpu_list(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@login_required
def gpu_compare(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")
