"""MkDocs hook: the settings reference is rendered from ``forumcrawl/defaults.py`` at build time.

A page holding the marker ``<!-- settings-table -->`` gets one table per group of settings. A
group is a blank-line separated block of defaults.py, titled by the plain ``# Title`` comment
that opens it; each row is a setting's name, its default and its ``#:`` comment. So the
reference cannot drift from the code.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MARKER = "<!-- settings-table -->"
DEFAULTS = Path(__file__).resolve().parents[2] / "forumcrawl" / "defaults.py"


@dataclass
class Setting:
    """One ``FORUMCRAWL_*`` setting as defaults.py declares it."""

    name: str
    default: Any
    comment: str


@dataclass
class Group:
    """Settings declared together, under one ``# Title`` comment."""

    title: str
    settings: list[Setting] = field(default_factory=list)


def read_settings(path: Path = DEFAULTS) -> list[Group]:
    """The groups of every ``FORUMCRAWL_*`` assignment of ``path``, in file order."""
    source = path.read_text("utf-8")
    lines = source.splitlines()
    spec = importlib.util.spec_from_file_location("_forumcrawl_defaults", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    groups: list[Group] = []
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.target.id.startswith("FORUMCRAWL_")):
            continue
        row = node.lineno - 2
        comment: list[str] = []
        while row >= 0 and lines[row].startswith("#:"):
            comment.insert(0, lines[row][2:].strip())
            row -= 1
        opens_group = row < 0 or not lines[row].strip() or lines[row].startswith("# ")
        if opens_group or not groups:
            title = lines[row][2:].strip() if row >= 0 and lines[row].startswith("# ") else ""
            groups.append(Group(title or "Other"))
        name = node.target.id
        groups[-1].settings.append(Setting(name, getattr(module, name), " ".join(comment)))
    return groups


def _shown(value: Any) -> str:
    """A default as one writes it: JSON for strings and lists, Python for the rest."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (str, list, dict)) else repr(value)


def render(groups: list[Group]) -> str:
    """Markdown of the settings: a heading and a table per group."""
    out: list[str] = []
    for group in groups:
        out += [f"## {group.title}", "", "| setting | default | meaning |", "|---|---|---|"]
        for setting in group.settings:
            meaning = setting.comment.replace("|", "&#124;")
            out.append(f"| `{setting.name}` | `{_shown(setting.default)}` | {meaning} |")
        out.append("")
    return "\n".join(out)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Replace the marker with the generated tables (MkDocs calls this for every page)."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render(read_settings()))
