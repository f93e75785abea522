"""The compare page's ratio cells and links that change one thing of its state."""

from django import template
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def ratio_cell(item: dict, figure: str) -> str:
    """The figure over the baseline's, coloured by how far and which way."""
    found = item.get("ratios", {}).get(figure)
    if found is None:
        return ""
    return format_html(' <span class="ratio {}">{}</span>', found.css, found.text)


@register.filter
def with_base(state, key: str) -> str:
    return state.with_base(key)


@register.filter
def percent(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value * 100:.1f}%"
