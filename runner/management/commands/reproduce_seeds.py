from django.core.management.base import BaseCommand, CommandError

from runner.seed_runs import seeds_reproduce
from submissions.tracks.reproduced import BY_KEY


class Command(BaseCommand):
    help = (
        "Run the seeds' comparisons (classic insertion, FIFO with deletes, on a small memory, "
        "a query during inserts) at 1/K on private servers of this host: InnoDB, MyRocks, Aria, "
        "MyISAM and PostgreSQL as each comparison names them, PostgreSQL's, MyISAM's and Aria's "
        "server in a memory cgroup of the seed host's memory scaled 1/K (their data live in the "
        "page cache). Each run is stored as a reference row 'reproduced on <host> at 1/K' beside "
        "the published ones; /seeds/ shows the ratios and each run's memory limit."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--scale", type=int, required=True, help="K: rows and memory 1/K of the seed's"
        )
        parser.add_argument(
            "--comparisons",
            default="",
            help=f"comma-separated, of {', '.join(BY_KEY)} (default: all)",
        )
        parser.add_argument(
            "--engines", default="", help="comma-separated, e.g. ROCKSDB,InnoDB (default: all)"
        )
        parser.add_argument("--timeout", type=float, default=1800, help="seconds one run may take")

    def handle(self, *args, **options):
        if options["scale"] < 1:
            raise CommandError(f"--scale {options['scale']}: K is a whole number of at least 1.")
        try:
            outcomes = seeds_reproduce(
                scale=options["scale"],
                comparisons=_listed(options["comparisons"]),
                engines=_listed(options["engines"]),
                timeout=options["timeout"],
                say=self.stdout.write,
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        failed = [o for o in outcomes if o.reproduction.status != "completed"]
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(outcomes) - len(failed)} runs stored, {len(failed)} failed, in "
                f"{sum(o.seconds for o in outcomes):.0f} s."
            )
        )


def _listed(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]
