"""The entry page's rerun panel: a run that ended before inserting a row shows no empty plot."""

import pytest

from runner import services

pytestmark = pytest.mark.django_db


def test_a_run_cancelled_before_its_first_row_says_so_instead_of_empty_axes(
    client, entry, organizer, rerun_dir
):
    run = services.rerun_start(
        submission=entry, target="sqlite", rows=20_000, requested_by=organizer, comparison=True
    )
    services.rerun_cancel(run=run)
    client.force_login(organizer)

    page = client.get(entry.get_absolute_url()).content.decode()

    assert f'id="rerun-{run.pk}"' in page
    assert f'id="rerun-plot-{run.pk}"' not in page
    assert "No rows went in before this run cancelled: nothing to plot." in page
