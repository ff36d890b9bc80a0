"""report.html of the demo in a real headless Chromium (Debian's chromium + chromium-driver, driven
by selenium; nothing downloaded at run time): no console errors, every section shown, a screenshot.

The screenshot is written to tests/report/out/ (ignored by git) for people to look at; set
LINEAGE_REPORT_SCREENSHOT=PATH to write it elsewhere (docs/report-screenshot.png is made so).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from lineage.cli import main

from .conftest import WEEK

pytestmark = pytest.mark.spark
SECTIONS = ("headline", "what-broke", "changes", "people", "impact-graph", "access-drift", "operations", "hygiene", "input-health")
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--window-size=1100,1600")


@pytest.fixture
def browser(tmp_path):
    if not (CHROMIUM and DRIVER):  # .ci/run installs them; say loudly what is missing elsewhere
        pytest.fail("chromium and chromium-driver are needed: apt-get install -y chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def test_report_html_in_headless_chromium(demo_warehouse, tmp_path, browser):
    from selenium.webdriver.common.by import By

    result = CliRunner().invoke(main, ["report", "--warehouse", str(demo_warehouse), "--out", str(tmp_path),
                                       "--week", WEEK, "--engine", "local"])
    assert result.exit_code == 0, result.stderr
    page = tmp_path / WEEK / "report.html"
    browser.get(page.as_uri())
    assert browser.title == f"lineage weekly report {WEEK}"
    for section in SECTIONS:
        element = browser.find_element(By.ID, section)
        assert element.is_displayed() and element.find_element(By.TAG_NAME, "h2").text
    svgs = browser.find_elements(By.CSS_SELECTOR, "#impact-graph svg, #headline svg, #input-health svg")
    assert len(svgs) >= 3 and all(s.size["width"] > 0 for s in svgs)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    # at 1,400 px nothing runs off the right edge: no table wider than its section, no page scroll
    browser.set_window_size(1400, 1600)
    over = browser.execute_script(
        "const out = [];"
        "for (const t of document.querySelectorAll('table')) {"
        "  const box = t.closest('section').getBoundingClientRect(), r = t.getBoundingClientRect();"
        "  if (r.right > box.right + 1 || t.scrollWidth > t.clientWidth + 1) out.push(t.closest('section').id); }"
        "return [out, document.documentElement.scrollWidth, window.innerWidth];")
    assert over[0] == [] and over[1] <= over[2], over
    # a phone-width window must not hide a section either
    browser.set_window_size(390, 1600)
    assert all(browser.find_element(By.ID, s).is_displayed() for s in SECTIONS)
    browser.set_window_size(1400, 1600)
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1400, min(int(height) + 40, 6000))
    shot = Path(os.environ.get("LINEAGE_REPORT_SCREENSHOT") or Path(__file__).parent / "out" / "report.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_hostile_names_run_no_script_and_show_as_text(hostile_warehouse, tmp_path, browser):
    """Issue 27: a table named ``acme.<img src=x onerror=...>`` and an actor holding a <script>
    (each setting ``window.__pwned``) are shown as their text; nothing planted runs."""
    from selenium.webdriver.common.by import By

    from . import hostile

    result = CliRunner().invoke(main, ["report", "--warehouse", str(hostile_warehouse), "--out", str(tmp_path),
                                       "--week", hostile.WEEK, "--engine", "local", "--top", "30"])
    assert result.exit_code in (0, 3), result.output
    browser.get((tmp_path / hostile.WEEK / "report.html").as_uri())
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
    assert browser.find_elements(By.CSS_SELECTOR, "#changes img, #changes script, svg[onload]") == []
    changes = browser.find_element(By.ID, "changes").text
    assert hostile.TABLE in changes and "<script>window.__pwned=2</script>" in changes
    # the report's own Content-Security-Policy is in force (a planted script would be refused too)
    browser.execute_script("var s = document.createElement('script'); s.textContent = 'window.__pwned = 9';"
                           "document.body.appendChild(s);")
    assert browser.execute_script("return typeof window.__pwned") == "undefined"
