"""A page as a reader sees it at each screen size and colour scheme (issue 43): the sizes and
schemes every page is checked at, what a reader would call broken measured in the page itself
(a sideways scroll, a column header off the screen, a rate header without its unit, a badge
cut short, a button whose text does not stand out from its fill), and a screenshot of each
page at each setting under var/test-artifacts/<family>/."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from testing.browser import Browser

ARTIFACTS = Path(settings.BASE_DIR) / "var" / "test-artifacts"
DESKTOPS = ((1280, 900), (1920, 1080))
PHONE = (390, 844)
SCREENS = (*DESKTOPS, PHONE)
SCHEMES = ("light", "dark")

# Measured in the page: its sideways scroll, every visible column header's box, every badge
# whose text is wider than its box, and each visible button's WCAG contrast of its text on the
# first opaque fill behind it (a chart's linear/log buttons: their text on their own fill).
READER_VIEW = """() => {
  const visible = (element) => element.offsetParent !== null
    && getComputedStyle(element).visibility !== "hidden";
  const channels = (color) => (color.match(/[\\d.]+/g) || []).map(Number);
  const luminance = (color) => {
    const [r, g, b] = channels(color).slice(0, 3).map(v => v / 255)
      .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const fillBehind = (element) => {
    for (let at = element; at; at = at.parentElement) {
      const fill = getComputedStyle(at).backgroundColor;
      const alpha = channels(fill)[3];
      if (fill && alpha !== 0) return fill;
    }
    return getComputedStyle(document.documentElement).backgroundColor || "rgb(255, 255, 255)";
  };
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)];
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };
  return {
    sideways: document.scrollingElement.scrollWidth - window.innerWidth,
    width: window.innerWidth,
    headers: [...document.querySelectorAll("main table thead th")].filter(visible).map(th => {
      const box = th.getBoundingClientRect();
      return {text: th.innerText.replace(/\\s+/g, " ").trim(), left: box.left, right: box.right};
    }),
    clipped: [...document.querySelectorAll(".badge")].filter(visible)
      .filter(badge => badge.scrollWidth > badge.clientWidth)
      .map(badge => badge.innerText.trim()),
    badges: [...document.querySelectorAll(".badge")].filter(visible)
      .map(badge => badge.innerText.trim()),
    buttons: [...document.querySelectorAll("main button")].filter(visible).map(button => ({
      text: button.innerText.trim(),
      contrast: contrast(getComputedStyle(button).color, fillBehind(button)),
    })).filter(button => button.text)  // Plotly's toolbar: icons, no text
      .concat([...document.querySelectorAll(".updatemenu-button")].map(button => ({
        text: button.querySelector("text").textContent.trim(),
        contrast: contrast(getComputedStyle(button.querySelector("text")).fill,
          getComputedStyle(button.querySelector("rect")).fill),
      }))),
  };
}"""

RATE = re.compile(r"\brate\b", re.IGNORECASE)


@dataclass
class Seen:
    """One page at one screen size and scheme, as measured."""

    name: str
    width: int
    scheme: str
    view: dict
    text: str
    extra: dict = field(default_factory=dict)

    def problems(self) -> list[str]:
        """What a reader would call broken here, in words; [] when nothing is."""
        found = []
        where = f"{self.name} at {self.width} px, {self.scheme}"
        desktop = self.width >= DESKTOPS[0][0]
        if desktop and self.view["sideways"] > 0:
            found.append(f"{where}: the page scrolls {self.view['sideways']} px sideways")
        for header in self.view["headers"]:
            outside = header["left"] < 0 or header["right"] > self.view["width"] + 0.5
            if desktop and outside:
                found.append(f"{where}: column {header['text']!r} ends off the screen")
            if RATE.search(header["text"]) and "rows/s" not in header["text"]:
                found.append(f"{where}: column {header['text']!r} names a rate without a unit")
        found += [f"{where}: badge {text!r} is cut short" for text in self.view["clipped"]]
        found += [
            f"{where}: button {button['text']!r} reads at {button['contrast']:.1f}:1"
            for button in self.view["buttons"]
            if button["contrast"] < 3
        ]
        return found


Visit = tuple[str, str, str]  # (name, path, a selector the page shows once it is drawn)


def visit_everywhere(
    browser: Browser,
    family: str,
    pages: Iterable[Visit],
    *,
    before: Callable | None = None,
    extra: Callable | None = None,
) -> dict[tuple[str, int, str], Seen]:
    """Each page at each screen size in each scheme, one browser context per setting (opened
    with `before(watched)`, e.g. to log in); a screenshot of each under
    var/test-artifacts/<family>/; `extra(page)` measures what a family's test asserts besides."""
    folder = ARTIFACTS / family
    folder.mkdir(parents=True, exist_ok=True)
    pages = list(pages)
    seen: dict[tuple[str, int, str], Seen] = {}
    for scheme in SCHEMES:
        for width, height in SCREENS:
            watched = browser.new_page(width=width, height=height, color_scheme=scheme)
            if before is not None:
                before(watched)
            page = watched.page
            for name, path, shows in pages:
                response = page.goto(path)
                assert response.status == 200, (path, response.status)
                page.wait_for_selector(shows)
                seen[(name, width, scheme)] = Seen(
                    name,
                    width,
                    scheme,
                    page.evaluate(READER_VIEW),
                    page.inner_text("main"),
                    extra(page) if extra is not None else {},
                )
                page.screenshot(
                    path=str(folder / f"{name}-{width}x{height}-{scheme}.png"), full_page=True
                )
                assert watched.csp_violations() == [], (name, width, scheme)
            page.context.close()
    return seen


def problems_of(seen: dict[tuple[str, int, str], Seen]) -> list[str]:
    return [problem for each in seen.values() for problem in each.problems()]
