"""Settings as run (issue 29): where the entrant declared none, the claim's log's own settings
(the C benchmark's header prints them all) are the declaration a rerun takes; the redo log, a
size that shapes the curve and that a rerun does not scale, is named."""

import pytest

from runner.judge.scaling import rerun_settings
from submissions.entries.demo import demo_load
from submissions.models import SettingSource, Submission
from submissions.setup.declared import declared_settings, entry_family
from submissions.setup.entry_settings import logged_settings, settings_as_run
from submissions.setup.server_settings import MYSQL

pytestmark = pytest.mark.django_db

DEMO_ENTRY = "Demo: C iiBench on MariaDB, a 128 MB buffer pool"


def rerun_of(entry: Submission, scale: int = 10):
    family = entry_family(entry)
    return rerun_settings(
        settings_as_run(entry, declared_settings(entry), family),
        entry_family=family,
        server_family=MYSQL,
        scale=scale,
        memory_gb=entry.memory_gb,
        logged=logged_settings(entry),
    )


def test_an_entry_that_declared_no_settings_is_rerun_with_its_logs_own():
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    declared = rerun_of(entry)
    # The same entry with nothing declared: its log's header says its server ran with
    # innodb_flush_log_at_trx_commit=2 (changed) and the default 128 MB pool.
    entry.server_settings.filter(source=SettingSource.DECLARED).delete()
    Submission.objects.filter(pk=entry.pk).update(server_config="")
    asked = rerun_of(entry)
    assert asked.applied["innodb_flush_log_at_trx_commit"] == "2"
    assert asked.applied["innodb_buffer_pool_size"] == declared.applied["innodb_buffer_pool_size"]
    assert asked.applied["innodb_buffer_pool_size"] == "14M"  # 1 MB + 127 MB / 10
    assert asked.applied["innodb_lru_scan_depth"] == "154"
    # Where its server ran (its port, socket, files) is not the solution's: not applied.
    assert not {"port", "socket", "basedir", "pid_file", "log_error"} & set(asked.applied)
    assert not asked.refused


def test_the_redo_log_is_named_as_unscaled():
    demo_load()
    entry = Submission.objects.get(entrant_name=DEMO_ENTRY)
    asked = rerun_of(entry)
    assert (
        "innodb_log_file_size not scaled 1/10 (the claim's 96M): the rerun's run is 10x smaller "
        "against the same log, so it checkpoints less often than the claim"
    ) in asked.changes
    # A run at the claim's own size has nothing unscaled to name.
    assert not any("not scaled" in change for change in rerun_of(entry, scale=1).changes)
