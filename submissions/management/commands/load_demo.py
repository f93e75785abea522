from django.core.management.base import BaseCommand

from submissions.entries.demo import demo_load, write_synthetic_logs


class Command(BaseCommand):
    help = "Load the demo contests, accounts and entries (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--write-synthetic",
            action="store_true",
            help="Regenerate the synthetic demo logs in submissions/demo_logs/ first.",
        )

    def handle(self, *args, **options):
        if options["write_synthetic"]:
            for path in write_synthetic_logs():
                self.stdout.write(f"wrote {path}")
        summary = demo_load()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo data: contests {', '.join(summary['contests'])}; "
                f"{summary['entries_created']} new entries."
            )
        )
        for username, password, is_staff in summary["users"]:
            role = "organizer (staff)" if is_staff else "entrant"
            self.stdout.write(f"  demo {role}: {username} / {password}")
