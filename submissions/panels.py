"""What other apps add to an entry's page and to its admin, registered by them when they load
(`AppConfig.ready`): the registry never imports them. The runner adds its rerun panel and its
"start a verification rerun" action here (runner/apps.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class EntryPanel:
    """A section of the entry page: its template, and the context it needs for this viewer
    (`context(submission, user)`), merged into the page's."""

    template: str
    context: Callable[..., dict]


ENTRY_PANELS: list[EntryPanel] = []
# Admin actions on entries (the Submission admin's `actions` is this list).
ENTRY_ADMIN_ACTIONS: list[Callable] = []


def register_entry_panel(panel: EntryPanel) -> None:
    if panel not in ENTRY_PANELS:
        ENTRY_PANELS.append(panel)


def register_entry_admin_action(action: Callable) -> None:
    if action not in ENTRY_ADMIN_ACTIONS:
        ENTRY_ADMIN_ACTIONS.append(action)


def entry_panels_context(submission, user) -> dict:
    """Every registered panel's context for the entry page, and the panels to include."""
    context: dict = {"entry_panels": list(ENTRY_PANELS)}
    for panel in ENTRY_PANELS:
        context.update(panel.context(submission, user))
    return context
