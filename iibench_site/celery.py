import os
from pathlib import Path

from celery import Celery
from celery.signals import worker_ready

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


@worker_ready.connect
def _sweep_on_start(sender, **kwargs):
    # Re-checks lost, or left by a worker that stopped, are sent again when a worker starts.
    sender.app.send_task("submissions.tasks.sweep_rechecks")


# The runner's own worker signals (its host, its queues, its heartbeats, its stuck runs) live
# with the runner; imported here so they are connected before the worker sets up its queues.
import runner.worker_signals  # noqa: E402, F401
