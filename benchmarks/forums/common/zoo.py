"""Seeding helpers shared by the engines of the zoo (stdlib only, Python 3.8+).

Each ``<engine>/seed.py`` runs in its engine's venv, fills the engine through the engine's own
models, and writes ``<engine>/truth/truth.json`` in machina's format with these helpers.  The
content plan (users, boards, threads, posts, quotes, edits) and the truth writer are
``plan.py`` and ``truthlib.py`` beside this file, read at seed time.
"""
import datetime as dt
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import plan as plan_mod  # noqa: E402
import truthlib  # noqa: E402

html_to_text = truthlib.html_to_text


def load_plan(seed, n_threads=150):
    """The fixed-seed content plan (PLAN_SEED and PLAN_THREADS in the environment override)."""
    seed = int(os.environ.get("PLAN_SEED", seed))
    n_threads = int(os.environ.get("PLAN_THREADS", n_threads))
    return plan_mod.build_plan(seed=seed, n_threads=n_threads)


def utc(iso):
    """Plan times are naive UTC ISO strings; an aware UTC datetime."""
    return dt.datetime.fromisoformat(iso).replace(tzinfo=dt.timezone.utc)


def bbcode_body(post, quote_fmt='[quote="{author}"]{text}[/quote]'):
    """Final BBCode body of a plan post: the quote (engine's own quote syntax) then the own text."""
    if post["quote"]:
        q = quote_fmt.format(author=post["quote"]["author"], text=post["quote"]["text"])
        return q + "\n\n" + post["own_text"]
    return post["own_text"]


def original_body(post, compose):
    """Body as first submitted, for posts the plan edits later (compose(post) gives a body)."""
    if not post["edit"]:
        return compose(post)
    return compose(dict(post, own_text=post["edit"]["original_own_text"]))


def n_pages(n_posts, per_page):
    return max(1, (n_posts + per_page - 1) // per_page)


def page_urls(url, n_posts, per_page, fmt="{url}?page={n}"):
    """Page URLs of a thread as the engine links them: page 1 is the bare URL."""
    return [url] + [fmt.format(url=url, n=k) for k in range(2, n_pages(n_posts, per_page) + 1)]


def thread_record(th, url, pages, aliases, title, board_url, posts, **extra):
    rec = {"url": url, "page_urls": pages, "url_aliases": aliases, "title": title, "board": th["board"],
           "board_url": board_url, "lang": th["lang"], "source": th["source"], "posts": posts}
    rec.update(extra)
    return rec


def post_record(p, idx, body, rendered_html, page_url, post_id, signature_html=None, edited=False,
                rendered_own_html=None, floor=None, **extra):
    """truthlib.post_record plus the floor (1-based position in the thread, or the engine's own
    numbering) and the signature as the page shows it (text of the rendered signature HTML)."""
    sig = html_to_text(signature_html) if signature_html else None
    rec = truthlib.post_record(p, idx, body=body, rendered_html=rendered_html, page_url=page_url,
                               post_id=post_id, signature=sig or None, edited=edited, extra=extra or None,
                               rendered_own_html=rendered_own_html)
    rec["floor"] = floor if floor is not None else idx + 1
    if signature_html:
        rec["signature_rendered_html"] = signature_html
    return rec


def write_truth(engine_dir, meta, threads, non_topic, plan):
    """Write <engine_dir>/truth/truth.json (+ topic_urls.txt); topic_urls = every thread's pages."""
    topic_urls = [u for t in threads for u in t["page_urls"]]
    out = os.path.join(engine_dir, "truth")
    doc = truthlib.write_truth(out, meta, topic_urls, threads, non_topic, plan)
    # the same document without truthlib's indentation: keeps the committed file under ~5 MB
    with open(os.path.join(out, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print("[%s] truth: %s" % (meta["engine"], doc["stats"]))
    return doc


def slug_ascii(text):
    """Lower-case ASCII slug (letters, digits, hyphens) -- for engines that need one."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
