from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from runner.calibration import CalibrationRefused, host_calibrate, reference_for
from runner.models import CalibrationStatus


class Command(BaseCommand):
    help = (
        "Calibrate this host for the classic judge: rerun a reference claim several times on a "
        "private server of the target and keep the spread of every figure the judge compares "
        "(runner/calibration.py). Run it on the verification host, its queue idle."
    )

    def add_arguments(self, parser):
        parser.add_argument("--target", default="mariadb", help="a private-server target")
        parser.add_argument(
            "--scale", type=int, default=10, help="the band: the reference claim at 1/K"
        )
        parser.add_argument("--reference", help="a reference setup by name (instead of --scale)")
        parser.add_argument(
            "--repeats", type=int, default=settings.RERUN_CALIBRATION_REPEATS, help="runs (2-10)"
        )

    def handle(self, *args, **options):
        try:
            reference = reference_for(scale=options["scale"], name=options["reference"])
            calibration = host_calibrate(
                target=options["target"], reference=reference, repeats=options["repeats"]
            )
        except CalibrationRefused as refused:
            raise CommandError(str(refused)) from None
        if calibration.status != CalibrationStatus.DONE:
            raise CommandError(
                f"The calibration of {calibration.host} failed: {calibration.message}"
            )
        spreads = ", ".join(
            f"{figure} {each['sigma']:.3f} ({each['dof']} dof)"
            for figure, each in calibration.spreads.items()
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Calibrated {calibration.host} on {calibration.target} at 1/{calibration.scale}: "
                f"{calibration.message} Spreads: {spreads}."
            )
        )
