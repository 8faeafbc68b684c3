"""The package-dir mapping and the no-Scrapy rule for the algorithms."""

from __future__ import annotations

import subprocess
import sys

MAPPED = ("forumcrawl", "forumcrawl.spiders", "forumcrawl.pipelines", "forumcrawl.extractors", "forumcrawl.mockforum")


def _run(code: str, cwd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_every_mapped_package_imports_from_elsewhere(tmp_path):
    code = "import importlib\n" + "".join(
        f"m = importlib.import_module({name!r}); print(m.__name__, m.__file__)\n" for name in MAPPED
    )
    result = _run(code, str(tmp_path))
    assert result.returncode == 0, result.stderr
    files = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert files["forumcrawl.spiders"].replace("\\", "/").endswith("spiders/__init__.py")
    assert files["forumcrawl.extractors"].replace("\\", "/").endswith("extractors/__init__.py")


def test_algorithms_and_page_layer_do_not_import_scrapy(tmp_path):
    code = (
        "import sys, pkgutil, importlib, forumcrawl.extractors as ex\n"
        "for m in pkgutil.iter_modules(ex.__path__):\n"
        "    importlib.import_module('forumcrawl.extractors.' + m.name)\n"
        "import forumcrawl.pages, forumcrawl.document, forumcrawl.offline\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'scrapy', 'twisted'})\n"
        "print(bad)\n"
        "assert not bad\n"
    )
    result = _run(code, str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_scrapy_lists_our_spiders_from_the_repository_root():
    import forumcrawl

    root = __import__("pathlib").Path(forumcrawl.__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "list"], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) >= {"forum", "news"}
