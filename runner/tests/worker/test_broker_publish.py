"""`publish`: a rerun's (or a re-check's) message sent once more on a connection of its own when
the pooled producer's publish fails, as kombu's filesystem broker (the embedded default of
`make run`) failed the first publish of every fresh development server: "'NoneType' object has
no attribute 'client'" (26 Nov 2026; the run then waited five minutes for the sweep). That
failure came from a threaded server's pool and was not reproduced in a test; checked by hand on
a fresh `make run` (the first rerun sent at once). What a test can show: a publish is sent
once, where it is asked; a broker that is down still fails, for the caller to handle."""

import pytest
from celery import Celery

from iibench_site.celery import publish


@pytest.fixture
def filesystem_broker(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    (tmp_path / "processed").mkdir()
    (tmp_path / "control").mkdir()
    app = Celery("publish-test", broker="filesystem://")
    app.conf.broker_transport_options = {
        "data_folder_in": str(folder),
        "data_folder_out": str(folder),
        "processed_folder": str(tmp_path / "processed"),
        "control_folder": str(tmp_path / "control"),  # not kombu's default, ./control
    }
    yield app, folder
    app.close()


def test_a_publish_is_sent_once_to_its_queue(filesystem_broker):
    app, folder = filesystem_broker
    publish(app, "runner.tasks.run_verification", args=[7], queue="rerun.mariadb")
    sent = list(folder.iterdir())
    assert len(sent) == 1
    assert sent[0].name.endswith(".rerun.mariadb.msg")
    assert "runner.tasks.run_verification" in sent[0].read_text()


def test_a_broker_that_is_down_fails_both_tries_for_the_caller_to_handle():
    app = Celery("publish-down", broker="redis://127.0.0.1:1/0")  # nothing listens there
    app.conf.broker_connection_retry = False
    app.conf.broker_connection_max_retries = 0
    app.conf.broker_transport_options = {"max_retries": 0}
    try:
        with pytest.raises(Exception):  # noqa: B017 - kombu's or redis's, as it comes
            publish(app, "runner.tasks.run_verification", args=[7], retry=False)
    finally:
        app.close()
