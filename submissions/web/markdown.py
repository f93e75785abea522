"""Entrant-written Markdown rendered to HTML that is safe to show to everyone."""

import threading

import markdown as markdown_lib
import nh3

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre",
    "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "del",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}


_converters = threading.local()


def _converter() -> markdown_lib.Markdown:
    """This thread's converter, its extensions loaded once (markdown.markdown() made a new one
    and loaded them at each call, most of a short text's time); reset before each text."""
    converter = getattr(_converters, "converter", None)
    if converter is None:
        converter = _converters.converter = markdown_lib.Markdown(
            extensions=["fenced_code", "tables"]
        )
    return converter.reset()


def render_markdown(text: str) -> str:
    html = _converter().convert(text or "")
    # nh3 drops scripts, event handlers and javascript: URLs; links get rel="noopener noreferrer".
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
