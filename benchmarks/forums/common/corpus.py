#!/usr/bin/env python3
"""Build a text corpus from offline Debian packages (no network needed).

Sources (all installed with apt-get by common/engine.sh; each package's licence is in its /usr/share/doc/<package>/copyright):
  * debian-faq, debian-faq-zh-cn   -> /usr/share/doc/debian/FAQ/{*.en.html, zh-cn/*.zh-cn.html}
        Debian FAQ (English + Simplified Chinese).  Q&A sections: question -> answer paragraphs.
  * debian-reference-en, debian-reference-zh-cn -> /usr/share/debian-reference/ch*.{en,zh-cn}.html
        Debian Reference (Osamu Aoki et al.), section titles + paragraphs.
  * fortunes (English fortune cookies) -> /usr/share/games/fortunes/*
  * fortunes-zh (Tang/Song poems, Chinese sayings) -> /usr/share/games/fortunes/{tang300,song100,chinese}.u8

Usage:  python3 corpus.py OUT.json     (stdlib only; deterministic)
"""
import glob
import json
import os
import re
import sys
from html.parser import HTMLParser

CJK = r"\u3000-\u303f\u3400-\u9fff\uff00-\uffef"


def norm_ws(s):
    s = s.replace("\u00a0", " ")
    # newline between two CJK characters (or CJK punctuation) -> nothing
    s = re.sub(r"(?<=[%s])[ \t]*\n[ \t]*(?=[%s])" % (CJK, CJK), "", s)
    s = re.sub(r"\s+", " ", s)
    return s.strip()


class DocbookParser(HTMLParser):
    """Collect (title, [paragraphs]) for each h2/h3/h4 section of DocBook HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []
        self.cur = None
        self.in_title = False
        self.title_buf = []
        self.in_p = 0
        self.p_buf = []
        self.in_pre = False
        self.pre_buf = []
        self.li_depth = 0
        self.skip = 0  # inside table / toc etc.

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "") or ""
        if tag in ("div",) and ("toc" in cls.split() or "navheader" in cls or "navfooter" in cls):
            self.skip += 1
            self._skipdepth = getattr(self, "_skipdepth", [])
            self._skipdepth.append(0)
            return
        if self.skip and tag == "div":
            self._skipdepth[-1] += 1
            return
        if self.skip:
            return
        if tag in ("h2", "h3", "h4") and "title" in cls:
            self.in_title = True
            self.title_buf = []
        elif tag == "p" and "title" not in cls.split():
            self.in_p += 1
            self.p_buf = []
        elif tag == "pre":
            self.in_pre = True
            self.pre_buf = []
        elif tag == "li":
            self.li_depth += 1
        elif tag == "br" and self.in_p:
            self.p_buf.append("\n")

    def handle_endtag(self, tag):
        if self.skip:
            if tag == "div":
                if self._skipdepth[-1] == 0:
                    self._skipdepth.pop()
                    self.skip -= 1
                else:
                    self._skipdepth[-1] -= 1
            return
        if tag in ("h2", "h3", "h4") and self.in_title:
            self.in_title = False
            t = norm_ws("".join(self.title_buf))
            t = re.sub(r"^(第\s*)?[0-9A-Z]+(\.[0-9]+)*\.?\s*(节|章)?\s*", "", t).strip()
            self.cur = {"title": t, "paragraphs": []}
            self.sections.append(self.cur)
        elif tag == "p" and self.in_p:
            self.in_p -= 1
            t = norm_ws("".join(self.p_buf))
            if t and self.cur is not None:
                if self.li_depth:
                    t = "- " + t
                self.cur["paragraphs"].append(t)
        elif tag == "pre" and self.in_pre:
            self.in_pre = False
            t = "".join(self.pre_buf).strip("\n")
            if t.strip() and self.cur is not None and len(t) < 600:
                self.cur["paragraphs"].append("```\n" + t + "\n```")
        elif tag == "li":
            self.li_depth = max(0, self.li_depth - 1)

    def handle_data(self, data):
        if self.skip:
            return
        if self.in_title:
            self.title_buf.append(data)
        elif self.in_pre:
            self.pre_buf.append(data)
        elif self.in_p:
            self.p_buf.append(data)


def parse_docbook(paths, lang, source):
    out = []
    for p in sorted(paths):
        parser = DocbookParser()
        with open(p, encoding="utf-8") as f:
            parser.feed(f.read())
        for s in parser.sections:
            # drop very short fragments, but keep short list items ("- foo") so lists stay complete
            paras = [x for x in s["paragraphs"] if len(x) >= 20 or (x.startswith("- ") and len(x) >= 4)]
            if s["title"] and paras:
                out.append({"lang": lang, "source": source, "file": os.path.basename(p),
                            "title": s["title"], "paragraphs": paras})
    return out


def read_fortunes(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as f:
        data = f.read()
    items = []
    for chunk in data.split("\n%\n"):
        c = re.sub(r"\x1b\[[0-9;]*m", "", chunk).strip("\n%").rstrip()
        c = "\n".join(line.rstrip() for line in c.split("\n"))
        if 10 <= len(c) <= 400:
            items.append(c)
    return items


def build():
    faq_en = parse_docbook(glob.glob("/usr/share/doc/debian/FAQ/*.en.html"), "en", "debian-faq")
    faq_zh = parse_docbook(glob.glob("/usr/share/doc/debian/FAQ/zh-cn/*.zh-cn.html"), "zh", "debian-faq-zh-cn")
    ref_en = parse_docbook(glob.glob("/usr/share/debian-reference/ch*.en.html"), "en", "debian-reference-en")
    ref_zh = parse_docbook(glob.glob("/usr/share/debian-reference/ch*.zh-cn.html"), "zh", "debian-reference-zh-cn")
    fdir = "/usr/share/games/fortunes"
    fort_en = []
    for name in ("computers", "linux", "science", "literature", "wisdom", "work", "people",
                 "education", "definitions", "humorists", "art", "miscellaneous", "platitudes"):
        fort_en += read_fortunes(os.path.join(fdir, name))
    fort_zh = []
    for name in ("chinese.u8", "tang300.u8", "song100.u8"):
        fort_zh += read_fortunes(os.path.join(fdir, name))
    return {
        "faq_en": faq_en, "faq_zh": faq_zh, "ref_en": ref_en, "ref_zh": ref_zh,
        "fortune_en": fort_en, "fortune_zh": fort_zh,
    }


if __name__ == "__main__":
    c = build()
    for k, v in c.items():
        print(k, len(v), file=sys.stderr)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            json.dump(c, f, ensure_ascii=False, indent=0)
