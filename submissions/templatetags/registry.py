from django import template
from django.utils.safestring import mark_safe

from submissions.figures import format_duration
from submissions.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text: str) -> str:
    # nh3 has already removed scripts, handlers and unsafe URLs in render_markdown.
    return mark_safe(render_markdown(text))  # noqa: S308  # nosec B308, B703


@register.filter
def duration(seconds: float | None, estimated: bool = False) -> str:
    if seconds is None:
        return "—"
    return format_duration(seconds, estimated=estimated)


@register.filter
def rate(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"
