"""The runner's signals in a Celery worker: a pool process dies with its worker and reads its
host once; the worker consumes its host's own queues and registers its host; it beats for the
queues it serves; and runs left "running" by a worker that died are swept when one starts.

Connected when iibench_site/celery.py imports this module, before Django is set up: what they
read of the runner (its models among it) is imported inside each handler, once Django is.
"""

from celery.signals import (
    celeryd_after_setup,
    worker_process_init,
    worker_ready,
    worker_shutdown,
)
from django.core.exceptions import ImproperlyConfigured


@worker_process_init.connect
def _die_with_the_worker(**kwargs):
    # A pool process must not outlive a worker killed with SIGKILL: it would keep a benchmark
    # running that nobody watches. The benchmark in turn dies with the pool process.
    from runner.host import this_host
    from runner.process import die_with_parent

    die_with_parent()
    # The host a rerun runs on is read once, as the worker starts (runner/host.py).
    this_host()


@worker_ready.connect
def _sweep_on_start(sender, **kwargs):
    # Runs left "running" by a worker that died are finished at once when a worker starts.
    sender.app.send_task("runner.tasks.sweep_stuck_runs")


_beating = []
_registration = []


@celeryd_after_setup.connect
def _consume_this_hosts_queues(sender, instance, **kwargs):
    # Each rerun queue is consumed as rerun.<target>@<host> too, so that a verification can be
    # sent to this host (runner/fleet.py); the host's facts are read here, once, and a
    # RERUN_HOST_FACTS that names no fact stops the worker with why.
    from runner.fleet import host_queues, this_registration
    from runner.host import host_name

    queues = instance.app.amqp.queues
    consumed = sorted(queues.consume_from or queues)
    for name in host_queues(consumed, host_name(sender)):
        queues.select_add(name)
    try:
        _registration.append(this_registration(sender, consumed))
    except ImproperlyConfigured as error:
        # Celery logs and ignores a signal handler's Exception: the worker would run
        # unregistered. SystemExit stops it, with why.
        raise SystemExit(f"The worker's host cannot register: {error}") from error


@worker_ready.connect
def _beat_for_its_queues(sender, **kwargs):
    # The rerun form offers only targets a live worker serves (runner/heartbeats.py), and the
    # worker's host beats with them in the fleet's registry.
    from runner.fleet import host_beat
    from runner.heartbeats import Beating

    consumer = getattr(sender, "task_consumer", None)
    if consumer is not None:
        queues = sorted(queue.name for queue in consumer.queues)
    else:
        queues = sorted(sender.app.amqp.queues.consume_from or sender.app.amqp.queues)
    registration = _registration[-1] if _registration else None
    beating = Beating(
        sender.hostname,
        queues,
        also=(lambda: host_beat(registration=registration)) if registration else None,
    )
    beating.start()
    _beating.append(beating)


@worker_shutdown.connect
def _stop_beating(**kwargs):
    while _beating:
        _beating.pop().stop()
