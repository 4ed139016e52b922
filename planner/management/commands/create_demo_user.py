"""Create (or reset) the demo account that `make run` prints."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-planner-2026"


class Command(BaseCommand):
    help = "Create or reset the demo account (non-staff planner user) and print its credentials."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--staff", action="store_true", help="Also give the account catalog-editing rights."
        )

    def handle(self, *args, **options) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=DEMO_USERNAME, defaults={"email": "demo@example.com"}
        )
        user.set_password(DEMO_PASSWORD)
        user.is_staff = bool(options["staff"]) or user.is_staff
        user.save()
        verb = "created" if created else "reset"
        self.stdout.write(f"Demo account {verb}: username '{DEMO_USERNAME}', password '{DEMO_PASSWORD}'")
