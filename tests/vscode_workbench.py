"""A real VS Code for tests/test_vscode.py: code-server serving a workspace, driven through
headless Chromium (Debian's chromium and chromedriver, through selenium) as a person
drives it, by keyboard and mouse, reading what the page shows.

code-server, Node 24 and the .vsix come from `.ci/editors.sh`, which names them in
TENSORCOPY_CODE_SERVER and TENSORCOPY_VSIX."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = os.environ.get("TENSORCOPY_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("TENSORCOPY_CHROMEDRIVER", "/usr/bin/chromedriver")
# The shared 2-core machine is slow to start a workbench and an extension host.
SLOW_S = 120
WAIT_S = 45

# The user settings of every session: no welcome page, tips, trust prompt or telemetry.
USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "extensions.ignoreRecommendations": True,
    "extensions.autoUpdate": False,
    "chat.disableAIFeatures": True,
    "update.mode": "none",
    "editor.hover.delay": 300,
    "editor.minimap.enabled": False,
    "workbench.colorTheme": "Default Light Modern",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
}

Result = TypeVar("Result")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class CodeServer:
    """One code-server process with its own user data and extensions folders."""

    def __init__(self, executable: Path, home: Path, env: dict[str, str]) -> None:
        self.executable = executable
        self.user_data = home / "user-data"
        self.extensions = home / "extensions"
        self.log_path = home / "code-server.log"
        self.env = env
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        settings = self.user_data / "User" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(USER_SETTINGS, indent=2))

    def _command(self, *args: str) -> list[str]:
        return [str(self.executable), "--user-data-dir", str(self.user_data),
                "--extensions-dir", str(self.extensions), *args]

    def install_extension(self, vsix: Path) -> None:
        done = subprocess.run(self._command("--install-extension", str(vsix)), env=self.env,
                              capture_output=True, text=True, timeout=SLOW_S)
        assert done.returncode == 0 and "successfully installed" in done.stdout, (
            f"code-server could not install {vsix}:\n{done.stdout}\n{done.stderr}")

    def user_settings(self, **changes: object) -> None:
        """Changes the user settings (before ``start``)."""
        path = self.user_data / "User" / "settings.json"
        settings = json.loads(path.read_text())
        settings.update(changes)
        path.write_text(json.dumps(settings, indent=2))

    def start(self, folder: Path) -> str:
        """Serves ``folder``; the URL that opens it."""
        self.log = self.log_path.open("w")
        self.process = subprocess.Popen(
            self._command("--auth", "none", "--bind-addr", f"127.0.0.1:{self.port}", "--disable-telemetry",
                          "--disable-update-check", "--disable-workspace-trust", "--ignore-last-opened",
                          "--disable-getting-started-override", str(folder)),
            env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + SLOW_S
        while True:
            assert self.process.poll() is None, f"code-server exited:\n{self.log_path.read_text()}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, f"code-server did not answer:\n{self.log_path.read_text()}"
                time.sleep(0.5)
        return f"http://127.0.0.1:{self.port}/?folder={folder}"

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.log.close()


class Workbench:
    """The VS Code page in headless Chromium."""

    def __init__(self, url: str, profile: Path) -> None:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1440,900", f"--user-data-dir={profile}", "--no-first-run"):
            options.add_argument(flag)
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.get(url)
        self.wait_for(lambda: self.text(".explorer-folders-view") or None, SLOW_S, "the explorer to list the workspace")

    def close(self) -> None:
        self.driver.quit()

    # -- reading the page ------------------------------------------------------------
    def text(self, selector: str) -> str:
        """The text of every element ``selector`` matches that is shown, joined by newlines
        (the editors' non-breaking spaces as spaces). Hidden widgets keep their last text."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].filter(e => e.getClientRects().length)"
            ".map(e => e.innerText).join('\\n')", selector
        ).replace("\u00a0", " ")

    def shown(self, selector: str) -> int:
        """How many elements ``selector`` matches that are shown."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].filter(e => e.getClientRects().length).length",
            selector)

    def wait_for(self, condition: Callable[[], Result], timeout: float, what: str) -> Result:
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.25,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(lambda _: condition())
        except TimeoutException:
            raise AssertionError(f"waited {timeout} s for {what}") from None

    def wait_for_text(self, selector: str, wanted: Callable[[str], bool], what: str, timeout: float = WAIT_S) -> str:
        seen = ""

        def check() -> str | None:
            nonlocal seen
            seen = self.text(selector)
            return seen if wanted(seen) else None

        try:
            return self.wait_for(check, timeout, what)
        except AssertionError as error:
            raise AssertionError(f"{error}; {selector} showed:\n{seen}") from None

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))
        return path

    # -- acting ----------------------------------------------------------------------
    def keys(self, *keys: str) -> None:
        """Presses ``keys`` together (a chord), e.g. ``keys(Keys.CONTROL, "p")``."""
        chord = ActionChains(self.driver)
        for key in keys[:-1]:
            chord.key_down(key)
        chord.send_keys(keys[-1])
        for key in reversed(keys[:-1]):
            chord.key_up(key)
        chord.perform()

    def type(self, text: str) -> None:
        ActionChains(self.driver).send_keys(text).perform()

    def quick_input(self, opener: tuple[str, ...], text: str, pick: str) -> None:
        """Opens a quick input with ``opener``, types ``text`` and accepts the entry whose
        label holds ``pick`` (waiting for the list to show it)."""
        self.keys(*opener)
        self.wait_for_text(".quick-input-widget", bool, "the quick input")
        self.type(text)
        self.wait_for_text(".quick-input-widget .monaco-list-row.focused", lambda shown: pick in shown,
                           f"'{pick}' first in the quick input")
        self.type(Keys.ENTER)

    def input_box(self, prompt: str, text: str) -> None:
        """Answers the input box that asks ``prompt`` with ``text`` (replacing its value)."""
        self.wait_for_text(".quick-input-widget", lambda shown: prompt in shown, f"the input box '{prompt}'")
        self.keys(Keys.CONTROL, "a")
        self.type(text)
        self.type(Keys.ENTER)
        self.wait_for(lambda: not self.text(".quick-input-widget"), WAIT_S, "the input box to close")

    def command(self, title: str) -> None:
        """Runs a command from the palette by its title (an input box it opens stays open)."""
        self.quick_input((Keys.F1,), title, title)

    def open_file(self, name: str) -> None:
        self.quick_input((Keys.CONTROL, "p"), name, name)
        # A tab shows a file's name and extension in two elements.
        self.wait_for_text(".tabs-container .tab.active", lambda shown: name in shown.replace("\n", ""),
                           f"{name} open in a tab")

    def go_to(self, line: int, column: int) -> None:
        self.keys(Keys.CONTROL, "g")
        self.wait_for_text(".quick-input-widget", bool, "go to line")
        self.type(f"{line}:{column}")
        self.wait_for_text(".quick-input-widget", lambda shown: f"line {line}" in shown.lower(), f"go to line {line}")
        self.type(Keys.ENTER)
        self.wait_for(lambda: not self.text(".quick-input-widget"), WAIT_S, "go to line to close")

    def problems(self, wanted: Callable[[str], bool], what: str, timeout: float = WAIT_S) -> str:
        """The Problems panel's text once ``wanted`` holds for it (the panel opened if need be)."""
        if not self.shown(".markers-panel"):
            self.keys(Keys.CONTROL, Keys.SHIFT, "m")
        return self.wait_for_text(".markers-panel", wanted, what, timeout)

    def hover(self, wanted: Callable[[str], bool], what: str) -> str:
        """Shows the hover at the cursor (Ctrl+K Ctrl+I) and returns its text once ``wanted``."""
        self.keys(Keys.CONTROL, "k")
        self.keys(Keys.CONTROL, "i")
        return self.wait_for_text(".monaco-hover:not(.hidden)", wanted, what)

    def quick_fix(self, title: str) -> None:
        """Opens the light bulb's menu at the cursor (Ctrl+.) and applies the action ``title``."""
        self.keys(Keys.CONTROL, ".")
        self.wait_for_text(".action-widget", lambda shown: title in shown, f"'{title}' among the quick fixes")
        for item in self.driver.find_elements(By.CSS_SELECTOR, ".action-widget .monaco-list-row"):
            if title in item.text:
                item.click()
                return
        raise AssertionError(f"no quick fix titled {title!r}: {self.text('.action-widget')}")

    def editor_text(self) -> str:
        """The lines the active editor shows."""
        return self.text(".editor-group-container.active .monaco-editor .view-lines")

    def notifications(self, wanted: Callable[[str], bool], what: str, timeout: float = WAIT_S) -> str:
        return self.wait_for_text(".notifications-toasts", wanted, what, timeout)

