"""Headless Chromium for tests: Debian's own binary (never a browser download), pages that
record what a user would call broken (console errors, Content-Security-Policy violations,
uncaught exceptions, alert/confirm dialogs), and screenshots under var/screenshots/.

Open the browser after the test's data is stored: Playwright's sync API runs an event loop in
this thread, and Django refuses ORM calls under a running loop."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(settings.BASE_DIR) / "var" / "screenshots"

# Runs in every page before its own scripts: keeps the CSP violations the page causes.
RECORD_CSP_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile || document.location.pathname}:${event.lineNumber}`);
});
"""


class WatchedPage:
    """A Playwright page and what went wrong on it, as a list of readable lines."""

    def __init__(self, page):
        self.page = page
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        page.add_init_script(RECORD_CSP_VIOLATIONS)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        page.on("dialog", self._dialog)

    def _console(self, message) -> None:
        if message.type == "error":
            source = message.location.get("url") or self.page.url
            self.problems.append(f"console error on {self.page.url} ({source}): {message.text}")

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def csp_violations(self) -> list[str]:
        return self.page.evaluate("window.__cspViolations || []")

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


class Browser:
    def __init__(self, browser, base_url: str):
        self.browser = browser
        self.base_url = base_url
        self.pages: list[WatchedPage] = []

    def new_page(
        self, *, width: int = 1280, color_scheme: str = "light", height: int = 900
    ) -> WatchedPage:
        """A page in a fresh context: its own cookies, so its own visitor; `width`, `height`
        and `color_scheme` as the reader's screen and system setting."""
        context = self.browser.new_context(
            base_url=self.base_url,
            viewport={"width": width, "height": height},
            color_scheme=color_scheme,
            accept_downloads=True,
        )
        watched = WatchedPage(context.new_page())
        self.pages.append(watched)
        return watched


@contextmanager
def chromium(base_url: str) -> Iterator[Browser]:
    """Chromium against `base_url`; fails the test if any page had a problem or a dialog."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM:
        pytest.fail("No Chromium on this machine: scripts/system-packages.sh installs it.")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        browser = Browser(launched, base_url)
        try:
            yield browser
        finally:
            launched.close()
    problems = [problem for page in browser.pages for problem in page.problems]
    dialogs = [dialog for page in browser.pages for dialog in page.dialogs]
    assert problems == [], "\n".join(problems)
    assert dialogs == [], "\n".join(dialogs)


def log_in(page: WatchedPage, username: str, password: str) -> None:
    page.page.goto("/accounts/login/")
    page.page.fill("input[name=username]", username)
    page.page.fill("input[name=password]", password)
    page.page.get_by_role("button", name="Log in").click()
    page.page.wait_for_selector(f"text=Log out {username}")


def fill_declaration(page, declared: dict) -> None:
    """Type what an entrant declares into the form, field by field, as a person would."""
    for name, value in declared.items():
        field = page.locator(f"[name={name}]")
        kind = field.evaluate("element => element.type")
        if kind == "checkbox":
            field.set_checked(bool(value))
        elif kind.startswith("select"):
            field.select_option(str(value))
        else:
            field.fill(str(value))


@contextmanager
def browser_page() -> Iterator:
    """A Chromium page. Open it after the test's data is stored: Playwright's sync API runs an
    event loop in this thread, and ORM calls under it would get a connection of their own."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM:
        pytest.skip("no Chromium on this machine")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        browser.close()
    assert errors == []
