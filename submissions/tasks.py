"""Celery tasks of the registry are thin: load by id, claim, call the service."""

import logging

from celery import current_app, shared_task
from django.conf import settings

from iibench_site.celery import publish
from submissions.entries import rechecks
from submissions.opendata import state

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def recheck_contest(recheck_id: int) -> None:
    if not rechecks.recheck_claim(recheck_id=recheck_id):
        logger.info("Re-check %s is not queued any more (delivered twice): skipped", recheck_id)
        return
    try:
        rechecks.recheck_execute(recheck_id=recheck_id)
    except Exception as error:
        rechecks.recheck_fail(recheck_id=recheck_id, message=f"{type(error).__name__}: {error}")
        raise


def recheck_send(recheck_id: int) -> bool:
    """Send a re-check to the broker; False when the broker is down (the row stays queued and
    the sweep sends it again), never an error for the organizer who changed the rules."""
    try:
        publish(current_app, recheck_contest.name, args=[recheck_id], retry=False)
    except Exception as error:  # kombu's and redis's errors alike: the sweep sends it again
        logger.warning("Re-check %s not sent (%s): the sweep will send it", recheck_id, error)
        return False
    rechecks.recheck_sent(recheck_id=recheck_id)
    return True


@shared_task
def sweep_rechecks() -> int:
    resend = rechecks.rechecks_to_resend()
    for recheck_id in resend:
        recheck_send(recheck_id)
    if resend:
        logger.warning("Sent %s re-checks again (lost or their worker stopped)", len(resend))
    return len(resend)


@shared_task(
    soft_time_limit=settings.OPEN_DATA_BUILD_TIMEOUT_SECONDS,
    time_limit=settings.OPEN_DATA_BUILD_TIMEOUT_SECONDS * 1.2,
)
def open_dataset_refresh() -> str:
    """The open dataset's sweep (the beat sends it every OPEN_DATA_SWEEP_SECONDS): a build
    when the registry changed and it is its turn (submissions/opendata/state.py)."""
    return state.open_dataset_refresh()
