"""Celery tasks are thin: load by id, claim, call the service."""

import logging

from celery import shared_task

from runner import calibration, services
from runner.host import host_name

logger = logging.getLogger(__name__)


@shared_task(name=services.RUN_VERIFICATION, acks_late=True, reject_on_worker_lost=True)
def run_verification(run_id: int) -> None:
    from celery import current_task

    worker = current_task.request.hostname or "worker"
    if not services.rerun_claim(run_id=run_id, worker=worker):
        logger.info(
            "Rerun %s is not queued any more (delivered twice, or cancelled): skipped", run_id
        )
        return
    services.rerun_execute(run_id=run_id)


@shared_task
def sweep_stuck_runs() -> int:
    swept = services.reruns_sweep()
    if swept:
        logger.warning("Failed %s reruns whose worker stopped", swept)
    resent = services.reruns_resend()
    if resent:
        logger.warning("Sent %s queued reruns to the broker again", resent)
    if calibration.calibrations_send():
        logger.info("A verification host's calibration is due: sent to its idle queue")
    return swept


@shared_task(name=calibration.CALIBRATE_HOST, acks_late=True, reject_on_worker_lost=True)
def calibrate_host(target: str, reference: str, repeats: int) -> None:
    from celery import current_task

    worker = current_task.request.hostname or "worker"
    done = calibration.host_calibrate(
        target=target,
        reference=calibration.reference_for(name=reference),
        repeats=repeats,
        host=host_name(worker),
        only_if_due=True,
    )
    if done is None:
        logger.info("The calibration of %s on %s is fresh: skipped", worker, target)
    else:
        logger.info("Calibration of %s on %s: %s. %s", worker, target, done.status, done.message)
