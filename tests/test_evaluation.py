"""The scorer of ``forumcrawl eval`` on hand-computed cases (no shared data needed)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from forumcrawl.cli import CommandError
from forumcrawl.commands import COMMANDS
from forumcrawl.commands import eval as eval_command
from forumcrawl.evaluation import (
    PRF,
    evaluate,
    format_report,
    gold_day,
    is_exported,
    match_posts,
    score_page,
    text_prf,
    tokens,
)


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def make_gold(tmp_path: Path, rows: list[dict]) -> Path:
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    write_jsonl(gold_dir / "gold.jsonl", rows)
    return gold_dir


# --- tokens -------------------------------------------------------------------------------------


def test_tokens_split_cjk_kana_hangul_into_characters() -> None:
    assert tokens("Hello, 世界！ナルト 한국 2019-10-06") == [
        "hello", "世", "界", "ナ", "ル", "ト", "한", "국", "2019", "10", "06",
    ]  # fmt: skip


def test_tokens_lower_case_unicode_runs_and_split_mixed_runs() -> None:
    assert tokens("Straße ÉTÉ x_y abc中文def") == ["straße", "été", "x", "y", "abc", "中", "文", "def"]


def test_tokens_join_decomposed_accents() -> None:
    assert tokens("nai\u0308ve") == ["naïve"]


def test_tokens_of_punctuation_only_is_empty() -> None:
    assert tokens(" —…!? ") == []


# --- text P/R/F1 --------------------------------------------------------------------------------


def test_text_prf_counts_a_bag_of_tokens() -> None:
    # overlap {a, b} = 2; P = 2/4, R = 2/3, F1 = 2*2/(4+3)
    assert text_prf("a b c d", "A, b; e") == PRF(0.5, pytest.approx(2 / 3), pytest.approx(4 / 7))


def test_text_prf_counts_repeated_tokens_once_per_occurrence() -> None:
    assert text_prf("a a a", "a") == PRF(pytest.approx(1 / 3), 1.0, 0.5)


def test_text_prf_on_chinese_characters() -> None:
    assert text_prf("中文字", "中文") == PRF(pytest.approx(2 / 3), 1.0, pytest.approx(0.8))


def test_text_prf_empty_cases() -> None:
    assert text_prf("", "") == PRF(1.0, 1.0, 1.0)
    assert text_prf("...", "") == PRF(1.0, 1.0, 1.0)
    assert text_prf("", "gold text") == PRF(0.0, 0.0, 0.0)
    assert text_prf("predicted", "") == PRF(0.0, 0.0, 0.0)


# --- posts --------------------------------------------------------------------------------------


def test_post_matching_threshold_is_inclusive() -> None:
    # 4 of 5 tokens shared on both sides: F1 = 8/10 = 0.8 exactly → found.
    assert match_posts(["a b c d x"], ["a b c d e"]) == [0]
    # 3 of 5: F1 = 0.6 → not found.
    assert match_posts(["a b c x y"], ["a b c d e"]) == [None]


def test_post_matching_uses_each_prediction_once() -> None:
    assert match_posts(["a b c d e"], ["a b c d e", "a b c d e"]) == [0, None]


def test_post_matching_takes_the_best_unused_candidate() -> None:
    assert match_posts(["f g h i j", "a b c d e"], ["a b c d e", "f g h i j"]) == [1, 0]


def test_post_matching_is_greedy_in_gold_order() -> None:
    # The only prediction fits gold #2 exactly but gold #1 (F1 18/19) claims it first.
    assert match_posts(["a b c d e f g h i"], ["a b c d e f g h i j", "a b c d e f g h i"]) == [
        0,
        None,
    ]


def test_page_post_scores() -> None:
    gold = {
        "id": "t",
        "kind": "forum",
        "text": "one two three four five six seven eight nine ten",
        "posts": [
            {"text": "one two three four five", "author": "Ann Lee", "published": "2019-10-06"},
            {"text": "six seven eight nine ten", "author": "bob", "published": "2019-10-07 10:00"},
        ],
    }
    pred = {
        "id": "t",
        "text": "one two three four five six seven eight nine ten",
        "posts": [
            {"text": "one two three four five", "author": " ann  LEE ", "published": "2019-10-06"},
            {"text": "six seven", "author": "bob", "published": "2019-10-07T10:00:00+02:00"},
            {"text": "signature", "author": "bob"},
        ],
    }
    score = score_page(gold, pred)
    # 1 gold post found of 3 predicted / 2 gold: P = 1/3, R = 1/2, F1 = 2*1/(3+2).
    assert (score.posts_found, score.posts_predicted, score.posts_gold) == (1, 3, 2)
    assert score.metrics["posts_precision"] == pytest.approx(1 / 3)
    assert score.metrics["posts_recall"] == 0.5
    assert score.metrics["posts_f1"] == pytest.approx(0.4)
    # Author and date are judged on the matched post only.
    assert score.metrics["post_author"] == 1.0
    assert score.metrics["post_date"] == 1.0
    assert score.metrics["text_f1"] == 1.0


def test_page_without_predicted_posts_scores_zero_posts() -> None:
    gold = {"id": "t", "kind": "forum", "text": "x", "posts": [{"text": "x", "author": "a"}]}
    score = score_page(gold, {"id": "t", "text": "x"})
    assert score.metrics["posts_precision"] == score.metrics["posts_recall"] == 0.0
    assert score.metrics["post_author"] is None


# --- fields and dates ---------------------------------------------------------------------------


def test_gold_day_reads_iso_and_written_dates() -> None:
    assert gold_day("2019-10-06 16:59:52") == "2019-10-06"
    assert gold_day("2005-5-7 21:23:57") == "2005-05-07"
    assert gold_day("17.11.2019, 12:07") == "2019-11-17"
    assert gold_day("5. Januar 2019 um 20:38") == "2019-01-05"
    assert gold_day("Mon Jan 06, 2020 1:03 am") == "2020-01-06"


def test_gold_day_refuses_partial_dates_and_placeholders() -> None:
    assert gold_day("2018") is None
    assert gold_day("1996-6") is None
    assert gold_day("March 4") is None
    assert gold_day("UNKNOWN") is None


def test_fields_are_scored_only_where_gold_has_them() -> None:
    gold = {"id": "a", "kind": "article", "text": "x", "title": "The  Title"}
    gold["published"] = "2020-4-1"
    score = score_page(gold, {"id": "a", "title": "the title", "published": "2020-04-01T08:00Z"})
    assert score.metrics["title"] == 1.0
    assert score.metrics["date"] == 1.0
    assert score.metrics["author"] is None
    score = score_page(gold, {"id": "a", "title": "The Title - Site", "published": "2020-04-02"})
    assert score.metrics["title"] == 0.0
    assert score.metrics["date"] == 0.0


def test_unscorable_gold_date_is_not_scored() -> None:
    gold = {"id": "a", "kind": "article", "text": "x", "published": "UNKNOWN"}
    assert score_page(gold, {"id": "a", "published": "2020-01-01"}).metrics["date"] is None


# --- kinds --------------------------------------------------------------------------------------


def test_export_rule() -> None:
    assert is_exported({"text": "some words"})
    assert is_exported({"text": "", "posts": [{"text": "a post"}]})
    assert not is_exported({"text": "  …  "})
    assert not is_exported({"text": "some words", "skipped": True})
    assert not is_exported({"text": "some words", "skipped": "listing page"})
    assert not is_exported({"text": "some words", "kind": "other"})
    assert not is_exported({"text": "some words", "kind": "listing"})


def test_evaluate_reports_kinds_missing_and_summaries(tmp_path: Path) -> None:
    gold_dir = make_gold(
        tmp_path,
        [
            {"id": "a1", "kind": "article", "lang": "en", "text": "a b c d"},
            {"id": "a2", "kind": "article", "lang": "zh", "text": "中文"},
            {"id": "l1", "kind": "listing", "text": "news one news two"},
            {"id": "p1", "kind": "product", "text": "a product"},
        ],
    )
    predictions = [
        {"id": "a1", "text": "a b"},  # P 1, R 1/2, F1 2/3
        {"id": "l1", "text": "news one"},  # exported although a listing: P 1, R 1/2, F1 2/3
        {"id": "p1", "text": "a product", "kind": "other"},  # F1 1, not exported
        {"id": "zz", "text": "not in gold"},
    ]
    report = evaluate(gold_dir, predictions)
    assert report.missing_ids == ["a2"]
    assert report.unknown_ids == ["zz"]
    assert report.non_content_exported == ["l1"]
    assert report.content_not_exported == ["a2"]
    f1 = report.summary().metrics["text_f1"]
    # F1 per page: 2/3, 0 (missing), 2/3, 1.
    assert f1.n == 4
    assert f1.mean == pytest.approx((2 / 3 + 0 + 2 / 3 + 1) / 4)
    assert f1.median == pytest.approx(2 / 3)
    by_kind = report.by("kind")
    assert list(by_kind) == ["article", "listing", "product"]
    assert by_kind["article"].metrics["text_f1"].mean == pytest.approx(1 / 3)
    assert by_kind["article"].missing == 1
    assert list(report.by("lang")) == ["en", "unknown", "zh"]
    data = report.to_dict()
    assert data["non_content"] == {"pages": 2, "exported": 1, "exported_ids": ["l1"]}
    assert data["overall"]["metrics"]["title"] == {"n": 0, "mean": None, "median": None}
    json.dumps(data)
    text = format_report(report)
    assert "non-content pages exported as content: 1 of 2" in text
    assert "missing predictions: 1 of 4" in text
    assert "title" not in text.splitlines()[0]


def test_posts_scored_with_their_quotes_where_the_gold_keeps_them(tmp_path: Path) -> None:
    quote = "alice wrote: the kernel panics after the upgrade of the graphics driver"
    own = "roll back the driver"
    gold_dir = make_gold(tmp_path, [{"id": "t", "kind": "forum", "text": f"{quote} {own}",
                                     "posts": [{"text": f"{quote}\n{own}"}]}])
    pred = [{"id": "t", "text": own, "posts": [{"text": own, "quotes": [quote]}]}]
    own_words = evaluate(gold_dir, pred).summary().metrics["posts_f1"].mean
    assert own_words == 0.0
    assert evaluate(gold_dir, pred, with_quotes=True).summary().metrics["posts_f1"].mean == 1.0


def test_snippets_scored_per_page_and_pooled(tmp_path: Path) -> None:
    """A ``with`` snippet counts when it occurs with its whitespace read loosely (it spans two of
    our lines) and its quotes straight, case kept; a ``without`` snippet that occurs leaks. Pooled as trafilatura's
    evaluation pools them; a thread's posts stand for a missing text."""
    gold_dir = make_gold(
        tmp_path,
        [
            {"id": "a", "kind": "article", "with": ["the kernel  panics", "Roll back", "it's fixed"], "without": ["Imprint"]},
            {"id": "b", "kind": "article", "with": ["driver"], "without": ["Share this", "Imprint"]},
            {"id": "t", "kind": "forum", "with": ["second post"]},
            {"id": "n", "kind": "article", "text": "no snippets here"},
        ],
    )
    predictions = [
        {"id": "a", "text": "After the upgrade the kernel\npanics.\nroll back the driver: it’s fixed"},  # 2 of 3
        {"id": "b", "text": "the driver\nShare this\nImprint"},  # found, both leak
        {"id": "t", "posts": [{"text": "first post"}, {"text": "second post"}]},
        {"id": "n", "text": "no snippets here"},
    ]
    report = evaluate(gold_dir, predictions)
    pages = {page.id: page for page in report.pages}
    assert pages["a"].snippets == (2, 1, 0, 1)
    assert pages["b"].snippets == (1, 0, 2, 0)
    assert pages["t"].snippets == (1, 0, 0, 0)
    assert pages["n"].snippets is None
    assert pages["a"].metrics["snippets_found"] == pytest.approx(2 / 3)
    assert pages["b"].metrics["snippets_kept_out"] == 0.0
    assert pages["t"].metrics["snippets_kept_out"] is None  # no "without" snippet to keep out
    pooled = report.snippets()
    assert pooled is not None
    assert (pooled["pages"], pooled["found"], pooled["missed"], pooled["leaked"], pooled["kept_out"]) == (3, 4, 1, 2, 1)
    assert pooled["precision"] == pytest.approx(4 / 6)
    assert pooled["recall"] == pytest.approx(4 / 5)
    assert pooled["f1"] == pytest.approx(2 * 4 / (6 + 5))
    assert pooled["accuracy"] == pytest.approx(5 / 8)
    assert report.to_dict()["snippets"] == pooled
    assert "4 of 5 'with' found, 2 of 3 'without' leaked" in format_report(report)
    (tmp_path / "plain").mkdir()
    assert evaluate(make_gold(tmp_path / "plain", [{"id": "n", "kind": "article", "text": "x"}]), []).snippets() is None


# --- errors -------------------------------------------------------------------------------------


def test_missing_gold_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"gold\.jsonl: gold file not found"):
        evaluate(tmp_path, [])


def test_bad_gold_json_names_file_and_line(tmp_path: Path) -> None:
    gold_dir = tmp_path / "g"
    gold_dir.mkdir()
    (gold_dir / "gold.jsonl").write_text('{"id": "a", "kind": "article"}\n\n{oops\n', "utf-8")
    with pytest.raises(ValueError, match=r"gold\.jsonl:3: invalid JSON"):
        evaluate(gold_dir, [])


def test_unknown_gold_kind(tmp_path: Path) -> None:
    gold_dir = make_gold(tmp_path, [{"id": "a", "kind": "blog"}])
    with pytest.raises(ValueError, match=r"gold\.jsonl:1: 'kind' must be one of"):
        evaluate(gold_dir, [])


def test_prediction_without_id_names_file_and_line(tmp_path: Path) -> None:
    gold_dir = make_gold(tmp_path, [{"id": "a", "kind": "article", "text": "x"}])
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"id": "a", "text": "x"}\n{"text": "y"}\n', "utf-8")
    with pytest.raises(ValueError, match=r"pred\.jsonl:2: missing or invalid 'id'"):
        evaluate(gold_dir, pred)
    with pytest.raises(ValueError, match=r"prediction #1: missing or invalid 'id'"):
        evaluate(gold_dir, [{"text": "y"}])


def test_duplicate_prediction_id(tmp_path: Path) -> None:
    gold_dir = make_gold(tmp_path, [{"id": "a", "kind": "article", "text": "x"}])
    pred = write_jsonl(tmp_path / "pred.jsonl", [{"id": "a"}, {"id": "a"}])
    with pytest.raises(ValueError, match=r"pred\.jsonl:2: duplicate id 'a'"):
        evaluate(gold_dir, pred)


def test_missing_predictions_file(tmp_path: Path) -> None:
    gold_dir = make_gold(tmp_path, [{"id": "a", "kind": "article", "text": "x"}])
    with pytest.raises(ValueError, match=r"nope\.jsonl: cannot read"):
        evaluate(gold_dir, tmp_path / "nope.jsonl")


# --- command ------------------------------------------------------------------------------------


def eval_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    eval_command.add_arguments(parser)
    return parser.parse_args(argv)


def test_eval_command_user_errors(tmp_path: Path) -> None:
    gold_dir = make_gold(tmp_path, [{"id": "a", "kind": "article", "text": "x"}])
    with pytest.raises(CommandError, match="no such directory"):
        eval_command.run(eval_args(str(tmp_path / "none"), str(tmp_path / "p.jsonl")))
    with pytest.raises(CommandError, match="no such file"):
        eval_command.run(eval_args(str(gold_dir), str(tmp_path / "p.jsonl")))
    (tmp_path / "p.jsonl").write_text("[1]\n", "utf-8")
    with pytest.raises(CommandError, match=r"p\.jsonl:1: expected a JSON object"):
        eval_command.run(eval_args(str(gold_dir), str(tmp_path / "p.jsonl")))


def test_eval_command_writes_summary_and_per_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold_dir = make_gold(tmp_path, [{"id": "a", "kind": "listing", "text": "x y"}])
    pred = write_jsonl(tmp_path / "p.jsonl", [{"id": "a", "text": "x"}])
    summary, per_page = tmp_path / "s.json", tmp_path / "pp.jsonl"
    args = eval_args(str(gold_dir), str(pred), "--json", str(summary), "--per-page", str(per_page))
    assert eval_command.run(args) == 0
    assert "non-content pages exported as content: 1 of 1" in capsys.readouterr().out
    assert json.loads(summary.read_text("utf-8"))["overall"]["metrics"]["text_recall"]["mean"] == 0.5
    (page,) = [json.loads(line) for line in per_page.read_text("utf-8").splitlines()]
    assert page["exported"] is True
    assert page["text_precision"] == 1.0


_MISSING_COMMANDS = [
    name for name in COMMANDS if importlib.util.find_spec(f"forumcrawl.commands.{name}") is None
]


@pytest.mark.skipif(
    bool(_MISSING_COMMANDS), reason=f"CLI registry incomplete: {', '.join(_MISSING_COMMANDS)}"
)
def test_forumcrawl_eval_subprocess(tmp_path: Path) -> None:
    gold_dir = make_gold(
        tmp_path,
        [
            {"id": "a", "kind": "article", "lang": "zh", "text": "中文正文", "title": "标题"},
            {"id": "f", "kind": "forum", "text": "q a", "posts": [{"text": "q"}, {"text": "a"}]},
        ],
    )
    pred = write_jsonl(
        tmp_path / "pred.jsonl",
        [
            {"id": "a", "text": "中文正文", "title": "标题"},
            {"id": "f", "text": "q a", "posts": [{"text": "q"}, {"text": "a"}]},
        ],
    )
    summary, per_page = tmp_path / "report.json", tmp_path / "pages.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "eval", str(gold_dir), str(pred)]
        + ["--json", str(summary), "--per-page", str(per_page)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "missing predictions: 0 of 2" in done.stdout
    data = json.loads(summary.read_text("utf-8"))
    assert data["overall"]["metrics"]["text_f1"]["mean"] == 1.0
    assert data["by_kind"]["forum"]["metrics"]["posts_recall"]["mean"] == 1.0
    pages = [json.loads(line) for line in per_page.read_text("utf-8").splitlines()]
    assert [p["id"] for p in pages] == ["a", "f"]
    assert pages[1]["posts_found"] == 2

    done = subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "eval", str(gold_dir), str(tmp_path / "x")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "forumcrawl eval: error:" in done.stderr


def test_titles_and_authors_compare_typographic_quotes_and_dashes_as_ascii():
    gold = {"id": "1", "kind": "article", "title": "Yoga Won't Fix It - Really", "author": "Ann O'Hara"}
    pred = {"id": "1", "title": "Yoga Won’t  Fix It – Really", "author": "Ann O’Hara"}
    metrics = score_page(gold, pred).metrics
    assert (metrics["title"], metrics["author"]) == (1.0, 1.0)
    assert score_page(gold, {"id": "1", "title": "Yoga Will Fix It"}).metrics["title"] == 0.0


def test_titles_compare_without_the_characters_that_show_nothing():
    gold = {"id": "1", "kind": "article", "title": "Ein bisschen Fortschritt\u200b"}
    assert score_page(gold, {"id": "1", "title": "Ein bisschen Fort\xadschritt"}).metrics["title"] == 1.0
    assert score_page(gold, {"id": "1", "title": "Ein bisschen Fortschritte"}).metrics["title"] == 0.0
