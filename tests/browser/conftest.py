"""Real-browser tests: Debian's Chromium driven by Selenium against a real waitress server.

Skipped, saying why, where Chromium or its driver is not installed (`.ci/run` installs both).
Screenshots go to artifacts/screenshots/ (the README links committed copies in docs/screenshots/).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from browser_codes import HOST_CODE, TABLE_CODE

from companion.config import load_settings
from companion.services import build_services
from companion.web.server import add_dashboard

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"

CHROMIUM = os.environ.get("COMPANION_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = os.environ.get("COMPANION_CHROMEDRIVER") or shutil.which("chromedriver")

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(config, items):
    if CHROMIUM and DRIVER:
        return
    missing = "chromium" if not CHROMIUM else "chromedriver"
    if os.environ.get("COMPANION_REQUIRE_BROWSER"):  # CI installs it: a missing browser is a failure there
        raise pytest.UsageError(f"{missing} is not installed but COMPANION_REQUIRE_BROWSER is set")
    skip = pytest.mark.skip(reason=f"{missing} is not installed (apt-get install chromium chromium-driver; .ci/run does)")
    for item in items:
        if "tests/browser" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


@pytest.fixture
def live(tmp_path):
    """The companion with its dashboard on a free port; yields (services, base URL)."""
    settings = load_settings(env={}, overrides={
        "data_dir": str(tmp_path),
        "game": {"players": ["Ann", "Bob", "Cat", "Dan"]},
        "server": {"host": "127.0.0.1", "port": 0, "table_code": TABLE_CODE, "host_code": HOST_CODE, "threads": 32}})
    services = build_services(settings)
    web = add_dashboard(services)
    services.start()
    yield services, f"http://127.0.0.1:{web.port}"
    services.stop()


class Browser:
    """One browser = one phone: its own profile, so its own cookies (a separate browser context)."""

    def __init__(self, driver) -> None:
        self.driver = driver

    def size(self, width: int, height: int, *, mobile: bool = True, scale: float = 1) -> None:
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile})

    def accept_language(self, lang: str) -> None:
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": lang}})

    def shot(self, name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    def __getattr__(self, name):
        return getattr(self.driver, name)


@pytest.fixture
def browsers():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    made: list[Browser] = []

    def make(lang: str = "en-GB") -> Browser:
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,900", f"--lang={lang}", "--disable-extensions"):
            opts.add_argument(arg)
        opts.add_experimental_option("prefs", {"intl.accept_languages": lang})
        driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
        driver.set_page_load_timeout(20)
        b = Browser(driver)
        b.size(360, 740)  # a phone held in one hand
        made.append(b)
        return b

    yield make
    for b in made:
        b.driver.quit()
