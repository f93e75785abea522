from django.core.management.base import BaseCommand

from runner.rejudge import reruns_rejudge


class Command(BaseCommand):
    help = (
        "Judge every finished rerun again, from the output it stored, by the judge its track "
        "has now; the entries' verified badges follow (runner/rejudge.py)."
    )

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="*", type=int, help="only these reruns (their ids)")

    def handle(self, *args, **options):
        rejudged = reruns_rejudge(run_ids=options["runs"] or None)
        changed = [item for item in rejudged if item.changed]
        for item in changed:
            self.stdout.write(
                f"rerun {item.run_id} (entry {item.submission_id}): "
                f"{item.before} -> {item.after}: {item.message}"
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(rejudged)} reruns judged again; {len(changed)} verdicts changed."
            )
        )
