from django import template

from runner.forms import RerunForm
from runner.selectors import runs_for_entry
from submissions.selectors import is_organizer

register = template.Library()


@register.inclusion_tag("runner/_reruns.html", takes_context=True)
def reruns_panel(context, submission):
    user = context["request"].user
    organizer = is_organizer(user)
    return {
        "submission": submission,
        "runs": runs_for_entry(submission, user),
        "organizer": organizer,
        "form": RerunForm() if organizer else None,
        "csrf_token": context.get("csrf_token"),
    }
