"""Browser tests: the real app (`streamlit run app.py`) driven by Debian's Chromium through Playwright.

Fixtures:
- `app_server`: starts the app on a free localhost port with an empty temporary workspace
  (`RLI_WORKSPACE`), so the first visit ingests the bundled samples, waits for Streamlit's health
  endpoint and yields an `AppServer` (url, workspace). One server per test module.
- `browser_page`: a fresh Chromium page (1600×1100) per test.
- `start_app`: `running_app(workspace, **env)`, a context manager starting another server (e.g. two
  on one PostgreSQL database, RLI_DATABASE_URL).

Chromium and a CJK font are required by `./scripts/test.sh` and in CI: with `RLI_REQUIRE_BROWSER`
(set by test.sh) or `CI` set, a missing /usr/bin/chromium (or `RLI_CHROMIUM`) or a missing
fonts-noto-cjk fails the test instead of skipping it. A bare `pytest` elsewhere skips with the reason.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("RLI_CHROMIUM", "/usr/bin/chromium"))
# Without a CJK font Chromium draws Japanese labels as empty boxes, and screenshots mean nothing.
CJK_FONT = Path(os.environ.get("RLI_CJK_FONT", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
STARTUP_TIMEOUT = 90  # seconds: python imports plus the server's own start


# the logs of the servers running now: a failed test's report shows their ends (a click that did not
# take is otherwise a mystery once the server is gone)
_running_logs: list[Path] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for log in _running_logs:
            if log.exists():
                report.sections.append((f"streamlit log {log.name} (end)", log.read_text(errors="replace")[-4000:]))


@dataclass(frozen=True)
class AppServer:
    url: str
    workspace: Path


def browser_required() -> bool:
    return bool(os.environ.get("RLI_REQUIRE_BROWSER") or os.environ.get("CI"))


def missing_browser_parts(chromium: Path = CHROMIUM, font: Path = CJK_FONT) -> list[str]:
    missing = []
    if not chromium.exists():
        missing.append(f"{chromium} (Debian's chromium)")
    if not font.exists():
        missing.append(f"{font} (fonts-noto-cjk)")
    return missing


def require_chromium() -> None:
    missing = missing_browser_parts()
    if not missing:
        return
    message = (f"missing {', '.join(missing)}: install them with "
               "sudo apt-get install -y chromium fonts-noto-cjk")
    if browser_required():
        pytest.fail(message + " (./scripts/test.sh and CI must run the browser tests)")
    pytest.skip(message)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_health(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not become healthy in {STARTUP_TIMEOUT}s:\n{log.read_text()[-3000:]}")


@contextmanager
def running_app(workspace: Path, **env_extra: str):
    """`streamlit run app.py` on a free port with RLI_WORKSPACE=workspace (plus `env_extra`), until
    the block ends; yields its AppServer once healthy."""
    workspace.parent.mkdir(parents=True, exist_ok=True)
    log = workspace.parent / f"streamlit-{workspace.name}.log"
    port = free_port()
    # RLI_TRACE_UI: the server logs what each click did (ui/trace.py), shown when a test fails
    env = {**os.environ, "RLI_WORKSPACE": str(workspace), "RLI_SAMPLE_ENGINE": "fast", "RLI_TRACE_UI": "1",
           **env_extra}
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
               "--server.address", "127.0.0.1", "--server.port", str(port),
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    _running_logs.append(log)
    try:
        wait_for_health(url, process, log)
        yield AppServer(url, workspace)
    finally:
        _running_logs.remove(log)
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    require_chromium()
    with running_app(tmp_path_factory.mktemp("browser_ws") / "ws") as server:
        yield server


@pytest.fixture
def start_app():
    """`running_app` for tests that start servers of their own (several, or with other settings)."""
    require_chromium()
    return running_app


@pytest.fixture(scope="module")
def chromium():
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium):
    context = chromium.new_context(viewport={"width": 1600, "height": 1100})
    page = context.new_page()
    yield page
    context.close()
