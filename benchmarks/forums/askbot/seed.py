#!/usr/bin/env python3
"""Seed the Askbot Q&A test site through Askbot's own user methods; write truth/truth.json.

Each plan thread becomes a question (its first post) and answers (the replies), tagged with the
board key.  Run with the forum venv's python from setup.sh; expects a freshly migrated database.
"""
import datetime as dt
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
# the engine's site: setup.sh runs this script from it (common/engine.sh, zoo_migrate_seed)
sys.path.insert(0, os.environ.get("ASKBOT_SITE_DIR", os.getcwd()))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "askbotsite.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sites.models import Site  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils import translation  # noqa: E402

from askbot import const  # noqa: E402
from askbot.conf import settings as askbot_settings  # noqa: E402

import zoo  # noqa: E402

BASE_URL = settings.BASE_URL
PER_PAGE = const.ANSWERS_PAGE_SIZE  # answers a page; the question is shown above them on every page
SORT = "oldest"


def configure():
    Site.objects.filter(pk=1).update(domain=BASE_URL.split("//", 1)[1], name="Debian 用户问答")
    for key, value in [("APP_URL", BASE_URL), ("APP_SHORT_NAME", "Debian 用户问答 (askbot test site)"),
                       ("DEFAULT_ANSWER_SORT_METHOD", SORT), ("LIMIT_ONE_ANSWER_PER_USER", False),
                       ("MIN_REP_TO_ANSWER_OWN_QUESTION", 1), ("MIN_DAYS_TO_ANSWER_OWN_QUESTION", 0)]:
        askbot_settings.update(key, value)


def main():
    t_start = time.time()
    plan = zoo.load_plan(seed=1005)
    configure()
    User.objects.create_superuser("forum_admin", "admin@example.org", "admin-pass-123")
    users = {}
    for u in plan["users"]:
        user = User.objects.create_user(u["username"], u["email"], "password-" + u["username"])
        User.objects.filter(pk=user.pk).update(date_joined=zoo.utc(u["joined"]))
        users[u["username"]] = User.objects.get(pk=user.pk)
    # askbot makes a user's localized profile at the first page that shows the user, with a
    # get_or_create that races: two concurrent first views leave two rows, and from then on
    # every page showing that user answers 500 (a 2-worker crawl of a fresh site lost 23 % of
    # its thread pages so). Made here, one at a time, before any crawl.
    with translation.override(settings.LANGUAGE_CODE):
        for user in User.objects.all():
            user.get_localized_profile()

    records = []
    for ti, th in enumerate(plan["threads"]):
        with transaction.atomic():
            objs = []
            q = None
            for pi, p in enumerate(th["posts"]):
                user = users[p["author"]]
                body = zoo.original_body(p, lambda x: zoo.plan_mod.compose_body(x, "askbot"))
                when = zoo.utc(p["created"])
                if pi == 0:
                    post = q = user.post_question(title=th["title"][:300], body_text=body, tags=th["board"],
                                                  timestamp=when)
                else:
                    post = user.post_answer(question=q, body_text=body, timestamp=when)
                if p["edit"]:  # a revision 17 minutes later: the page shows "updated <time>" too
                    body = zoo.plan_mod.compose_body(p, "askbot")
                    later = when + dt.timedelta(minutes=17)
                    if pi == 0:
                        user.edit_question(question=post, title=q.thread.title, body_text=body, timestamp=later,
                                           revision_comment=p["edit"]["reason"], tags=th["board"])
                    else:
                        user.edit_answer(answer=post, body_text=body, timestamp=later,
                                         revision_comment=p["edit"]["reason"])
                    post.refresh_from_db()
                objs.append((p, post, body))
        records.append((th, q, objs))
        if ti % 50 == 0:
            print("seeded %d/%d threads (%.1fs)" % (ti, len(plan["threads"]), time.time() - t_start), flush=True)

    threads = []
    for th, q, objs in records:
        url = BASE_URL + q.get_absolute_url()
        n_answers = len(objs) - 1
        npages = zoo.n_pages(n_answers, PER_PAGE)
        pages = zoo.page_urls(url, npages, 1, fmt="{url}?sort=" + SORT + "&page={n}")
        # the page links: ?sort=oldest&page=N (N=1 and N=None too), the sort tabs ?sort=oldest and
        # ?sort=votes (no votes: same order); answer permalinks ?answer=<id> serve the answer's page
        aliases = {}
        for srt in (SORT, "votes"):
            aliases["%s?sort=%s" % (url, srt)] = url
            for k in ["None"] + list(range(1, npages + 1)):
                alias = "%s?sort=%s&page=%s" % (url, srt, k)
                if alias not in pages:
                    aliases[alias] = pages[k - 1] if isinstance(k, int) else url
        # ?sort=latest pages show the same answers newest first: variants, not thread pages
        variants = ["%s?sort=latest" % url] + ["%s?sort=latest&page=%s" % (url, k)
                                              for k in ["None"] + list(range(1, npages + 1))]
        posts = []
        for idx, (p, post, body) in enumerate(objs):
            purl = pages[0] if idx == 0 else pages[(idx - 1) // PER_PAGE]
            if idx:
                aliases["%s?answer=%d" % (url, post.pk)] = purl
            posts.append(zoo.post_record(p, idx, body, post.html, purl, post.pk, edited=bool(p["edit"]),
                                         repeated_on_page_urls=pages[1:] if idx == 0 else [],
                                         edit_reason=(p["edit"] or {}).get("reason") or None))
        threads.append(zoo.thread_record(
            th, url, pages, aliases, q.thread.title,
            BASE_URL + "/questions/scope:all/sort:activity-desc/tags:%s/page:1/" % th["board"], posts,
            topic_id=q.pk, thread_id=q.thread.pk, sort_variant_urls=variants))

    u0 = users[plan["users"][0]["username"]]
    q0 = records[0][1]
    non_topic = [
        BASE_URL + "/questions/",
        BASE_URL + "/questions/scope:all/sort:activity-desc/page:1/",
        BASE_URL + "/questions/scope:unanswered/sort:answers-asc/page:1/",
        BASE_URL + "/questions/scope:all/sort:activity-desc/tags:%s/page:1/" % records[0][0]["board"],
        BASE_URL + "/tags/", BASE_URL + "/users/", BASE_URL + "/badges/",
        BASE_URL + u0.get_absolute_url(),
        BASE_URL + "/questions/%d/revisions/" % q0.pk,
        BASE_URL + "/feeds/question/%d/" % q0.pk,
        BASE_URL + "/questions/ask/",
        threads[0]["sort_variant_urls"][0],
    ]
    meta = {
        "engine": "askbot", "engine_version": "askbot 0.13.0 (Django 4.2, SQLite)",
        "base_url": BASE_URL, "posts_per_page": PER_PAGE, "layout": "Q&A: question, then answers",
        "first_post_is": "the question; it is shown above the answers on EVERY page of the thread (its page_url "
                         "is page 1, the others are in repeated_on_page_urls); answers are the replies",
        "answer_order": "DEFAULT_ANSWER_SORT_METHOD=oldest (plan order); tabs ?sort=oldest|latest|votes",
        "pagination": "10 answers a page; page links '?sort=oldest&page=N' (page 1 also as '&page=1' and, from "
                      "the 'previous' button, '&page=None')",
        "body_format": "markdown (markdown-it); quotes are '> user wrote:' blockquotes",
        "signatures": "none (askbot has no signatures)",
        "edit_marker": "a second 'updated <abbr>' box beside 'asked/answered <abbr>' (revision link)",
        "times": "<abbr class=\"js-timeago\" title=\"2023-03-01 10:00:00+00:00 +0000\">2023-03-01 10:00:00+00:00 "
                 "+0000</abbr> inside 'asked'/'answered' revision links",
        "url_aliases": "?sort=oldest / ?sort=votes (+ &page=N|None), answer permalinks ?answer=<id> "
                       "(200, the answer's page, no redirect)",
        "sort_variants": "per thread sort_variant_urls: ?sort=latest pages (newest answers first) are not thread "
                         "pages of the truth: the same answers in another order",
        "noise": ["vote buttons and counts", "'add a comment' / 'see more comments' controls", "tags",
                  "login link /account/signin/?next=<signed JWT of the current path>",
                  "/feedback/?next=<JWT>", "related questions sidebar", "reputation badges on avatars"],
    }
    zoo.write_truth(HERE, meta, threads, non_topic, plan)
    print("done: %d threads, %d posts in %.1fs" % (len(threads), sum(len(t["posts"]) for t in threads),
                                                   time.time() - t_start))


if __name__ == "__main__":
    main()
