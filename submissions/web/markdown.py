"""Entrant-written Markdown rendered to HTML that is safe to show to everyone."""

import markdown as markdown_lib
import nh3

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "code", "pre",
    "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "del",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}


def render_markdown(text: str) -> str:
    html = markdown_lib.markdown(text or "", extensions=["fenced_code", "tables"])
    # nh3 drops scripts, event handlers and javascript: URLs; links get rel="noopener noreferrer".
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
