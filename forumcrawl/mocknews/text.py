"""Headlines, bylines and article paragraphs for the generated news sites, English and Chinese.

Articles must not share their sentences: single-page extractors drop text that repeats across a
site's pages as boilerplate, so each sentence is built from a small grammar with enough fillers
that two articles of one site rarely share one.
"""

from __future__ import annotations

import random
import re
import unicodedata

__all__ = ["NewsWriter", "slugify"]

_EN = {
    "org": ("the city council", "the transport ministry", "a regional hospital", "the central bank",
            "the local school board", "a consortium of farmers", "the harbour authority",
            "the state water utility", "a group of researchers", "the national weather service",
            "the museum's trustees", "the football federation", "a software startup",
            "the university library", "the energy regulator", "the airport operator"),
    "thing": ("the new tram line", "the housing plan", "the budget for next year", "the bridge repair",
              "the flood barrier", "the recycling scheme", "the solar farm", "the library extension",
              "the vaccination drive", "the night bus service", "the data centre", "the wind park",
              "the river clean-up", "the school meal programme", "the cycling network"),
    "verb": ("expand", "delay", "review", "fund", "cancel", "redesign", "speed up", "audit",
             "open", "cut", "double", "relocate"),
    "place": ("in the northern district", "near the old harbour", "across the valley",
              "in three suburbs", "along the coast", "in the city centre", "on the east bank",
              "around the main station", "in the industrial zone", "next to the stadium"),
    "weekday": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "people": ("residents", "commuters", "shop owners", "nurses", "teachers", "students",
               "engineers", "pensioners", "drivers", "parents"),
    "feeling": ("welcomed", "criticised", "questioned", "praised", "doubted", "celebrated"),
}

_EN_SENTENCES = (
    "{Org} said on {weekday} that it would {verb} {thing} {place}.",
    "According to {org}, about {n} {people} were affected by the changes to {thing}.",
    "{People} {feeling} the decision, saying {thing} had been discussed for {n} years.",
    "The cost of {thing} rose by {n} percent, {org} told reporters on {weekday}.",
    "Officials expect to {verb} {thing} within {n} months if the vote passes.",
    "A spokesperson for {org} declined to comment on {thing} {place}.",
    "Local {people} gathered {place} on {weekday} to talk about {thing}.",
    "Critics argue that {org} should {verb} {thing} before the winter.",
    "{Org} has published {n} pages of documents about {thing}.",
    "The first phase of {thing} {place} is due to finish in {n} weeks.",
    "Some {people} {feeling} the plan to {verb} {thing}, while others waited for details.",
    "Figures released on {weekday} show {n} complaints about {thing} {place}.",
    "{Org} promised to {verb} {thing} and to report back to {people} in {n} days.",
    "Engineers working {place} found {n} problems with {thing}.",
)

_EN_TITLES = (
    "{Org_t} plans to {verb} {thing}", "{People_t} react as {org} moves to {verb} {thing}",
    "{n} things to know about {thing}", "Why {thing} matters {place}",
    "{Org_t} to {verb} {thing} after {n} years", "What the vote on {thing} means for {people}",
    "Inside the fight over {thing}", "{Thing_t}: {org} answers {n} questions",
)

_ZH = {
    "org": ("市政府", "交通运输部门", "市第一人民医院", "省教育厅", "气象局", "水务集团", "科研团队",
            "文旅局", "足球协会", "开发区管委会", "市场监管局", "电力公司", "港务集团", "图书馆"),
    "thing": ("地铁新线", "老旧小区改造", "明年预算", "跨江大桥维修", "防洪工程", "垃圾分类", "光伏电站",
              "图书馆扩建", "疫苗接种", "夜间公交", "数据中心", "风电项目", "河道治理", "学生营养餐",
              "绿道网络"),
    "verb": ("推进", "延期", "评估", "投资", "调整", "加快", "审计", "启动", "扩大", "优化"),
    "place": ("在城北片区", "在老港区附近", "在沿江一带", "在三个街道", "在市中心", "在东岸",
              "在高铁站周边", "在工业园区", "在体育中心旁"),
    "people": ("居民", "通勤族", "商户", "护士", "教师", "学生", "工程师", "老人", "司机", "家长"),
}

_ZH_SENTENCES = (
    "{org}近日表示，将{place}{verb}{thing}。",
    "据{org}介绍，约有{n}名{people}受到{thing}调整的影响。",
    "不少{people}对{thing}表示关注，称此事已讨论了{n}年。",
    "{org}相关负责人说，{thing}的费用上涨了百分之{n}。",
    "按照计划，{thing}将在{n}个月内{verb}完成。",
    "记者从{org}获悉，{thing}{place}的第一阶段预计{n}周后结束。",
    "有{people}建议，{org}应在入冬前{verb}{thing}。",
    "{org}已公开{n}页有关{thing}的材料。",
    "数据显示，{place}关于{thing}的投诉共有{n}件。",
    "工作人员{place}检查时发现{thing}存在{n}处问题。",
    "{org}承诺将{verb}{thing}，并在{n}天内向{people}通报进展。",
)

_ZH_TITLES = (
    "{org}将{verb}{thing}", "{thing}{verb}：{people}怎么看", "关于{thing}的{n}个问题",
    "{place}{thing}进展顺利", "{org}回应{thing}相关问题", "{thing}迎来新进展",
)

_EN_NAMES = ("Alice Morgan", "Ben Okafor", "Chloe Dubois", "Daniel Kim", "Elena Rossi", "Farid Haddad",
             "Grace Liu", "Hugo Jensen", "Isabel Ortega", "Jonas Weber", "Kavya Nair", "Liam O'Neill")
_ZH_NAMES = ("张伟", "王芳", "李娜", "刘洋", "陈静", "杨帆", "赵磊", "黄敏", "周婷", "吴昊", "徐丽", "孙浩")

_EN_COMMENTS = ("Thanks for the update.", "This has been delayed far too long.", "Great reporting, as usual.",
                "Does anyone know when the consultation closes?", "I live nearby and nothing has changed.",
                "The figures look wrong to me.", "Finally some good news.")
_ZH_COMMENTS = ("感谢报道。", "希望早日完工。", "这个问题拖得太久了。", "支持！", "我家就在附近，还没看到变化。",
                "数据是不是有误？", "终于等到了。")

_WORDS = re.compile(r"[a-z0-9]+")


def slugify(text: str) -> str:
    """A URL slug as blog software makes it: lower-case ASCII words joined by hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "-".join(_WORDS.findall(ascii_text))[:60].strip("-")


class NewsWriter:
    """Makes headlines, paragraphs, names and comments in one language from a seeded RNG."""

    def __init__(self, lang: str, rng: random.Random) -> None:
        if lang not in {"en", "zh"}:
            raise ValueError(f"unknown language {lang!r}: en or zh")
        self.lang = lang
        self._rng = rng
        self._words = _EN if lang == "en" else _ZH

    def _fill(self, template: str) -> str:
        rng = self._rng
        values = {key: rng.choice(pool) for key, pool in self._words.items()}
        values["n"] = str(rng.randint(2, 97))
        for key in list(values):
            if key != "n":
                values[key.capitalize()] = values[key][:1].upper() + values[key][1:]
                values[key.capitalize() + "_t"] = values[key].title()
        return template.format(**values)

    def title(self, taken: set[str]) -> str:
        """A headline not in ``taken`` (added to it)."""
        titles = _EN_TITLES if self.lang == "en" else _ZH_TITLES
        while (title := self._fill(self._rng.choice(titles))) in taken:
            pass
        taken.add(title)
        return title

    def paragraphs(self) -> list[str]:
        """An article body: three to seven paragraphs of two to four sentences."""
        rng = self._rng
        sentences = _EN_SENTENCES if self.lang == "en" else _ZH_SENTENCES
        joiner = " " if self.lang == "en" else ""
        return [
            joiner.join(self._fill(rng.choice(sentences)) for _ in range(rng.randint(2, 4)))
            for _ in range(rng.randint(3, 7))
        ]

    def names(self, count: int) -> list[str]:
        """``count`` distinct author names."""
        pool = list(_EN_NAMES if self.lang == "en" else _ZH_NAMES)
        self._rng.shuffle(pool)
        return pool[:count]

    def comment(self) -> str:
        """A reader's comment."""
        return self._rng.choice(_EN_COMMENTS if self.lang == "en" else _ZH_COMMENTS)

    def terms(self, count: int) -> list[str]:
        """``count`` distinct category or tag names."""
        pool = sorted({*(_EN["thing"] if self.lang == "en" else _ZH["thing"])})
        pool = [t.removeprefix("the ").title() if self.lang == "en" else t for t in pool]
        self._rng.shuffle(pool)
        return pool[:count]
