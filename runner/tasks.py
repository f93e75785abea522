"""Celery tasks are thin: load by id, claim, call the service."""

import logging

from celery import shared_task

from runner import services

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
    return swept
