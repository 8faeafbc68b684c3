"""The engine zoo (benchmarks/forums) runs from a clone: its scripts read nothing outside the
repository, install under the folder FORUMS_HOME names, and parse. Checked without installing an
engine: every script runs in its dry-run mode (ZOO_DRY_RUN=1), which resolves the paths and stops."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import forumcrawl

ROOT = Path(forumcrawl.__file__).resolve().parents[1]
ZOO = ROOT / "benchmarks" / "forums"
ENGINES = sorted(p.parent.name for p in ZOO.glob("*/setup.sh"))
SCRIPTS = sorted(p for p in ZOO.rglob("*") if p.suffix in {".sh", ".py"} or p.name == "requirements.txt")
#: Paths a zoo script must not name: folders beside the clone, and fixed install locations.
OUTSIDE = re.compile(r"\.\./\.\./\.\.|\bshared/|(?<![\w$}])/(?:tmp|opt|srv|home|work|root)/")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the zoo's scripts are bash")


def test_the_zoo_has_its_engines_and_scripts():
    assert ENGINES == ["askbot", "misago", "pybbm"]
    assert len(SCRIPTS) > 15


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ZOO)))
def test_zoo_script_names_no_path_outside_the_repository(script: Path):
    found = [(n, line.strip()) for n, line in enumerate(script.read_text("utf-8").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not found, f"{script.relative_to(ROOT)} names paths outside the clone: {found}"


@pytest.mark.parametrize("script", sorted(ZOO.rglob("*.sh")), ids=lambda p: str(p.relative_to(ZOO)))
def test_zoo_shell_script_parses(script: Path):
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("step", ["setup", "start", "stop"])
def test_zoo_script_installs_under_forums_home_and_reads_the_clone(tmp_path: Path, engine: str, step: str):
    home = tmp_path / "engines"
    env = {**os.environ, "ZOO_DRY_RUN": "1", "FORUMS_HOME": str(home)}
    proc = subprocess.run(["bash", str(ZOO / engine / f"{step}.sh")], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    pairs = [line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line]
    paths: dict[str, list[str]] = {}
    for key, value in pairs:
        paths.setdefault(key, []).append(value)
    assert paths["install"] == [str(home / engine)]
    assert paths["venv"] == [str(home / engine / "venv")]
    assert "missing" not in paths, paths["missing"]
    assert len(paths["reads"]) >= 5
    assert all(Path(p).resolve().is_relative_to(ROOT) for p in paths["reads"] + paths["common"])
    assert not home.exists(), "a dry run installs nothing"


def test_zoo_python_helpers_load_from_the_clone():
    """zoo.py finds the content plan and truth writer beside it; verify_zoo.py finds verify.py."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import zoo, verify_zoo; "
            "assert zoo.plan_mod.__file__.startswith(sys.argv[1]); verify_zoo.load_verify()")
    proc = subprocess.run([sys.executable, "-c", code, str(ZOO / "common")], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
