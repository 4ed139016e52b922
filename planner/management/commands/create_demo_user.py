"""Create (or reset) the demo account that `make run` prints, and in development a staff account beside it."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-planner-2026"
#: Staff (catalog editing in /admin/) for a local development server only: never created with DEBUG off.
STAFF_USERNAME = "demo-staff"
STAFF_PASSWORD = "demo-staff-2026"
CREATESUPERUSER_HINT = ".venv/bin/python manage.py createsuperuser"


class Command(BaseCommand):
    help = (
        "Create or reset the demo account (non-staff planner user) and print its credentials; with --with-staff "
        "and DEBUG on, also a staff account for the admin (with DEBUG off it prints how to make one instead)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--staff", action="store_true", help="Also give the demo account catalog-editing rights."
        )
        parser.add_argument(
            "--with-staff",
            action="store_true",
            help=f"Development only (DEBUG on): also create or reset the staff account '{STAFF_USERNAME}'.",
        )

    def _account(self, username: str, password: str, *, staff: bool) -> str:
        user, created = get_user_model().objects.get_or_create(
            username=username, defaults={"email": f"{username}@example.com"}
        )
        user.set_password(password)
        user.is_staff = staff or user.is_staff
        user.is_superuser = user.is_superuser or (staff and username == STAFF_USERNAME)
        user.save()
        if staff:  # staff status opens the admin; the catalog editor group's permissions allow the edits
            from django.contrib.auth.models import Group

            user.groups.add(*Group.objects.filter(name="Catalog editor"))
        return "created" if created else "reset"

    def handle(self, *args, **options) -> None:
        verb = self._account(DEMO_USERNAME, DEMO_PASSWORD, staff=bool(options["staff"]))
        self.stdout.write(f"Demo account {verb}: username '{DEMO_USERNAME}', password '{DEMO_PASSWORD}'")
        if not options["with_staff"]:
            return
        if settings.DEBUG:
            verb = self._account(STAFF_USERNAME, STAFF_PASSWORD, staff=True)
            self.stdout.write(
                f"Staff account {verb} (development only, edits the catalog at /admin/): username "
                f"'{STAFF_USERNAME}', password '{STAFF_PASSWORD}'"
            )
        else:
            self.stdout.write(
                "No staff account is made with DEBUG off. To edit the catalog in /admin/, create one: "
                f"{CREATESUPERUSER_HINT}"
            )
