"""Changing a contest's rules as an organizer does in the admin, and reading a verdict's row on
an entry page: for the tests of rule versions and their re-checks."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone


def admin_change_memory_cap(client, organizer, contest, cap: int):
    """The organizer's action: the contest's admin form, every field as shown, the cap changed."""
    client.force_login(organizer)
    url = reverse("admin:submissions_contest_change", args=[contest.pk])
    form = client.get(url).context["adminform"].form
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        value = field.prepare_value(value)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
            continue
        data[name] = "" if value is None else value
    data.update(max_memory_gb=str(cap))
    for inline in ("rechecks", "rule_versions"):
        data.update({f"{inline}-TOTAL_FORMS": "0", f"{inline}-INITIAL_FORMS": "0"})
    for name in ("deadline", "results_published_at"):
        moment = getattr(contest, name)
        data.pop(name, None)
        if moment:
            local = timezone.localtime(moment)
            data[f"{name}_0"], data[f"{name}_1"] = (
                local.date().isoformat(),
                local.time().isoformat(),
            )
    response = client.post(url, data, follow=True)
    assert response.status_code == 200
    assert not (response.context.get("errors") or []), response.context["errors"]
    return response


def verdict_row(page: str, evidence: str) -> str:
    """The verdict table's row that holds `evidence` (the memory row: "GB of memory")."""
    end = page.index("</tr>", page.index(evidence, page.index('class="data verdicts"')))
    return page[page.rindex("<tr", 0, end) : end]
