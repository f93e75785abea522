import os
from pathlib import Path

from celery import Celery
from celery.signals import (
    celeryd_after_setup,
    worker_process_init,
    worker_ready,
    worker_shutdown,
)
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "iibench_site.settings.local")

app = Celery("iibench_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def publish(celery: Celery, name: str, **options):
    """`celery.send_task(name, **options)`, sent once more on a connection of its own when the
    pooled producer's publish fails. kombu's virtual transports (the filesystem broker of `make
    run`) can hand a request thread of the threaded development server a pooled channel that
    is already closed: every fresh `make run` failed its first rerun's publish with "'NoneType'
    object has no attribute 'client'" (26 Nov 2026), and the run waited five minutes for the
    sweep. A broker that is down fails both tries: the caller's own handling stands."""
    try:
        return celery.send_task(name, **options)
    except Exception:  # kombu's and the transports' errors alike: tried once more, as below
        with celery.connection_for_write() as connection:
            return celery.send_task(name, connection=connection, **options)


@app.on_after_configure.connect
def _make_filesystem_broker_folders(sender, **kwargs):
    # kombu's filesystem transport needs its folders; it is the broker of the embedded default.
    options = sender.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        if key in options:
            Path(options[key]).mkdir(parents=True, exist_ok=True)


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
    sender.app.send_task("submissions.tasks.sweep_rechecks")


_beating = []
_registration = []


@celeryd_after_setup.connect
def _consume_this_hosts_queues(sender, instance, **kwargs):
    # Each rerun queue is consumed as rerun.<target>@<host> too, so that a verification can be
    # sent to this host (runner/fleet.py); the host's facts are read here, once, and a
    # RERUN_HOST_FACTS that names no fact stops the worker with why.
    from runner.fleet import host_name, host_queues, this_registration

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
