"""The documentation: the README stays short and gives CI's commands, the MkDocs site builds in
strict mode without a warning, and its settings reference lists every setting of the code."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import forumcrawl
from forumcrawl import defaults

ROOT = Path(forumcrawl.__file__).resolve().parents[1]
README = ROOT / "README.md"


def _hook():
    """docs/hooks/settings_table.py, imported as MkDocs imports it (by path)."""
    path = ROOT / "docs" / "hooks" / "settings_table.py"
    spec = importlib.util.spec_from_file_location("settings_table", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _setting_names() -> list[str]:
    return [name for name in vars(defaults) if name.startswith("FORUMCRAWL_")]


def test_readme_is_at_most_300_lines():
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move the details to docs/"


def test_ci_runs_exactly_the_readme_commands():
    """.ci/run's commands are the bash blocks of the README's "Two commands", in order."""
    readme = README.read_text("utf-8")
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    readme_commands = [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.DOTALL)]
    ci = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    ci_commands = [line.strip() for line in ci if line.startswith("python -m pip")]
    assert len(readme_commands) == 2
    assert ci_commands == readme_commands


def test_readme_links_point_at_files_of_the_repository():
    readme = README.read_text("utf-8")
    targets = [t for t in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme) if "://" not in t]
    assert targets, "the README links its docs"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_settings_reference_has_every_setting_once_with_its_meaning():
    groups = _hook().read_settings()
    listed = [s.name for group in groups for s in group.settings]
    assert listed == _setting_names()
    assert all(s.comment for group in groups for s in group.settings)
    assert all(group.title != "Other" for group in groups), "every group opens with a # Title"


def test_docs_build_in_strict_mode_without_warnings(tmp_path: Path):
    pytest.importorskip("mkdocs", reason="the test extra installs MkDocs")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    assert "WARNING" not in log, log
    settings_page = (site / "settings" / "index.html").read_text("utf-8")
    missing = [name for name in _setting_names() if f"<code>{name}</code>" not in settings_page]
    assert not missing, f"settings missing from the built reference: {missing}"
    assert (site / "tutorial" / "index.html").exists()
