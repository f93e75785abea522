"""A long server configuration is bounded on the entry page (issue 40): a 200,000-character one
made its public page 2.75 MB and 1.5 s a view. The page shows the settings it declares first,
up to a bound, and the start of its text; the whole text is one link away."""

from __future__ import annotations

import pytest

from submissions.entries import services
from submissions.entries.settings_panel import SETTINGS_SHOWN
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, UserFactory

pytestmark = pytest.mark.django_db

# The page of an entry with the usual two-line configuration is about this size; the long one
# may add the bounded table and excerpt, not the configuration.
PAGE_BOUND_BYTES = 250_000


def long_config(chars: int = 200_000) -> str:
    lines = ["[mysqld]", "innodb_buffer_pool_size=12G"]
    number = 0
    while sum(len(line) + 1 for line in lines) < chars:
        lines.append(f"# tuning note {number}: keep this")
        lines.append(f"loose_setting_{number:05}=value-{number}")
        number += 1
    return "\n".join(lines)[:chars]


def entry_with(config: str):
    contest = ContestFactory(target_rows=5_000_000)
    return services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared={**DECLARED, "server_config": config},
        log_file=upload(),
    )


def test_a_200000_character_configuration_keeps_the_entry_page_small(client):
    config = long_config()
    assert len(config) == 200_000
    entry = entry_with(config)
    page = client.get(f"/entries/{entry.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert len(page.content) < PAGE_BOUND_BYTES, len(page.content)
    # The declared settings first (what the configuration changes), up to the bound.
    assert "<code>innodb_buffer_pool_size</code>" in html
    assert html.count("<tr><td><code>") <= SETTINGS_SHOWN
    assert "more settings:" in html
    # The whole text is one link away, as the entrant wrote it.
    link = f"/entries/{entry.pk}/server-config.txt"
    assert f'href="{link}"' in html
    raw = client.get(link)
    assert raw.status_code == 200
    assert raw["Content-Type"] == "text/plain; charset=utf-8"
    assert raw.content.decode() == config


def test_a_short_configuration_is_shown_whole_without_a_link(client):
    entry = entry_with(DECLARED["server_config"])
    html = client.get(f"/entries/{entry.pk}/").content.decode()
    assert "innodb_buffer_pool_size=12G" in html
    assert "server-config.txt" not in html
