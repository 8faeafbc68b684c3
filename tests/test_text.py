from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from forumcrawl.extractors.text import (
    is_stop_word,
    language,
    normalise,
    segments_cjk,
    stop_words,
    tokenize,
)


def test_normalise_entities_and_blanks() -> None:
    assert normalise("  a&nbsp;&amp;\u200b  b \r\n\n\n\n c\t d ") == "a & b\n\nc d"
    assert normalise("") == ""


def test_tokenize_chinese_with_jieba() -> None:
    tokens = tokenize("我们今天讨论Debian的安装问题")
    assert "debian" in tokens
    assert "安装" in tokens and "问题" in tokens
    assert all(t.strip() for t in tokens)


def test_tokenize_without_segmenting_gives_each_han_character() -> None:
    assert tokenize("A poem, 花前態舞, read", segment=False) == ["a", "poem", *"花前態舞", "read"]
    assert tokenize("我们今天讨论Debian", segment=False) == [*"我们今天讨论", "debian"]


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["今天天气很好，", "我们去公园散步吧 OK"], True),
        (["これは日本語のテキストです"], False),  # Japanese: jieba's dictionary is Chinese
        (["東京都の新型コロナウイルス感染者数は前日より増加した"], False),
        (["The poem 花前態舞 was read aloud at the ceremony last night"], False),
        # A Chinese forum page: menus and a one-character post beside an English footer.
        (["首页 论坛 登录", "测试论坛 > 综合讨论区", "顶", "GMT+8, 2024-3-8 15:30, Processed in 0.017 second(s)"], True),
        (["The kernel was upgraded"] * 200 + ["内核升级了"] * 50, False),  # the opening is read
        ([], False),
    ],
)
def test_segments_cjk_on_chinese_text_only(texts: list[str], expected: bool) -> None:
    assert segments_cjk(texts) is expected


def test_tokenize_latin_words_lowercased_punctuation_dropped() -> None:
    assert tokenize("Hello, World! It's 2024 -- apt-get.") == ["hello", "world", "it's", "2024", "apt", "get"]


@pytest.mark.parametrize(
    "text",
    ["Straße “quoted” café’s NAÏVE", "İstanbul İthe", "ΟΔΟΣ.Α ΟΔΟΣ ΚΑΙ", "Ⅻ Ⓐbc ﬁne", "plain ascii Words"],
)
def test_tokenize_lowers_each_word_as_it_stands(text: str) -> None:
    """Lower-casing a whole run at once gives each word's own lower case: the cases where it
    would not (a character that lower-cases to two, a final sigma) take the word-by-word way."""
    assert tokenize(text) == [m.group().lower() for m in re.finditer(r"[^\W_]+(?:['’][^\W_]+)*", text)]


def test_tokenize_drops_stop_words_on_request() -> None:
    assert tokenize("the kernel and 的 内核", drop_stop_words=True) == ["kernel", "内核"]


def test_stop_words_shipped() -> None:
    words = stop_words()
    assert {"the", "的", "回复", "quote"} <= words
    assert is_stop_word("The") and is_stop_word("2024") and not is_stop_word("kernel")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今天天气很好，我们去公园散步吧", "zh"),
        ("The kernel was upgraded and it is working with the new driver", "en"),
        ("Der Hund und die Katze sind nicht mit uns auf der Straße", "de"),
        ("Le chat est dans la maison et les enfants sont pour le jardin", "fr"),
        ("Привет, как дела?", "ru"),
        ("これは日本語のテキストです", "ja"),
        ("12345 !!!", ""),
    ],
)
def test_language(text: str, expected: str) -> None:
    assert language(text) == expected


def test_the_segmenter_is_preloaded_in_the_background_for_cjk_text_only() -> None:
    """Run in a fresh interpreter: jieba is not imported for Latin text, and is loaded in a
    background thread (the caller goes on at once) for text with CJK characters."""
    script = (
        "import sys, time\n"
        "from forumcrawl.extractors.text import preload_segmenter, tokenize\n"
        "preload_segmenter('Debian packages and kernels')\n"
        "time.sleep(0.5); assert 'jieba' not in sys.modules, 'loaded for Latin text'\n"
        "started = time.perf_counter(); preload_segmenter('软件包管理'); returned = time.perf_counter() - started\n"
        "for _ in range(300):\n"
        "    if 'jieba' in sys.modules and tokenize('软件包管理'):\n"
        "        break\n"
        "    time.sleep(0.05)\n"
        "print(returned, 'jieba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    returned, loaded = out.stdout.split()
    assert loaded == "True"
    assert float(returned) < 0.2  # the dictionary (about a second) is loaded in the thread


_SEGMENT_SCRIPT = """
import json, sys
import jieba
if sys.argv[1] == "plain":  # jieba's own loading, as jieba ships it
    jieba.initialize()
else:
    if sys.argv[1] == "copy-only":  # fails unless the dictionary comes from the copy
        jieba.Tokenizer.initialize = lambda self, dictionary=None: sys.exit("jieba loaded its own cache")
    from forumcrawl.extractors.segmenter import load_jieba
    jieba = load_jieba()
text = "我们今天讨论Debian的安装问题。北京大学的图书馆和博物馆周末开放，软件包管理器升级了内核。"
print(json.dumps(jieba.lcut(text, HMM=True), ensure_ascii=False))
"""


def _segment(mode: str, cache_home: Path) -> list[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    out = subprocess.run(
        [sys.executable, "-c", _SEGMENT_SCRIPT, mode], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_jieba_dictionary_copy_segments_as_jieba_does(tmp_path: Path) -> None:
    """The first load writes the copy of jieba's dictionary; later processes read the copy
    (jieba's own loading would make them fail) and cut text exactly as jieba's own loading."""
    plain = _segment("plain", tmp_path / "none")
    assert "北京大学" in plain
    assert _segment("first", tmp_path) == plain
    copies = list((tmp_path / "forumcrawl").glob("jieba-*.dict"))
    assert len(copies) == 1
    assert _segment("copy-only", tmp_path) == plain


def test_damaged_jieba_copy_falls_back_and_is_rewritten(tmp_path: Path) -> None:
    """A truncated copy is not read: jieba loads itself, and a whole copy replaces it."""
    plain = _segment("first", tmp_path)
    (copy,) = (tmp_path / "forumcrawl").glob("jieba-*.dict")
    whole = copy.read_bytes()
    copy.write_bytes(whole[: len(whole) // 2])
    assert _segment("first", tmp_path) == plain
    assert copy.read_bytes() == whole
    assert _segment("copy-only", tmp_path) == plain


def test_unwritable_cache_folder_still_segments(tmp_path: Path) -> None:
    """A cache folder that cannot be made (a file in its place) costs the copy, not the words."""
    (tmp_path / "forumcrawl").write_text("not a folder", encoding="utf-8")
    assert "北京大学" in _segment("first", tmp_path)
