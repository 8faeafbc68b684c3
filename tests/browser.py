"""``python -m tests.browser``: make sure the report's screenshot tests have a browser to run in.

pip cannot install Chromium, so the README's test command runs this before pytest. Where
Chromium is missing and the user is root on a machine with apt-get (CI, a container), it installs
Debian's ``chromium`` and the CJK font the report's screenshot is checked with (170 MB of
packages, and the libraries they need). Anywhere else it installs nothing and says why the
screenshot tests will be skipped and how to run them. It never fails the command: without a
browser those tests are skipped with that reason, and every other test runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from forumcrawl.commands.report import BROWSERS

#: Debian's packages: the browser and a font with Chinese glyphs (the report's test draws some).
PACKAGES = ("chromium", "fonts-noto-cjk")
#: An install that takes longer is stopped (a stalled mirror must not hang the test command).
INSTALL_TIMEOUT = 900
INSTALL_HINT = f"sudo apt-get install {' '.join(PACKAGES)}"


def _browser() -> str | None:
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


def has_cjk_font() -> bool:
    """Whether fontconfig knows a font with Chinese glyphs."""
    if shutil.which("fc-list") is None:
        return False
    listed = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False)
    return bool(listed.stdout.strip())


def _apt(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(["apt-get", "-q", *args], capture_output=True, text=True, env=env,
                          timeout=INSTALL_TIMEOUT, check=False)


def install() -> str:
    """Install the packages with apt-get (refreshing the package lists if they do not know
    them); what happened, in one line."""
    started = time.monotonic()
    say(f"installing Debian's {' and '.join(PACKAGES)} for the report's screenshot tests ...")
    command = ("install", "-y", "--no-install-recommends", *PACKAGES)
    done = _apt(*command)
    if done.returncode != 0:
        _apt("update")
        done = _apt(*command)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"apt-get could not install them ({tail[0]}): the screenshot tests will be skipped"
    return f"installed in {time.monotonic() - started:.0f} s: {_browser()}"


def say(line: str) -> None:
    print(f"tests.browser: {line}", flush=True)


def main() -> int:
    """Report (and, as root with apt-get, fix) what the screenshot tests need; always 0."""
    if _browser() and has_cjk_font():
        say(f"{_browser()} and a CJK font are installed: the screenshot tests will run")
    elif shutil.which("apt-get") is None:
        say("no Chromium or no CJK font, and no apt-get to install them: the screenshot tests "
            "will be skipped (install Chromium and a font with Chinese glyphs to run them)")
    elif os.geteuid() != 0:
        say(f"no Chromium or no CJK font: the screenshot tests will be skipped; to run them: "
            f"{INSTALL_HINT}")
    else:
        try:
            say(install())
        except subprocess.TimeoutExpired:
            say(f"apt-get took over {INSTALL_TIMEOUT} s and was stopped: the screenshot tests "
                "will be skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
