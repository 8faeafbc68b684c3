"""Word pools and sentence makers for the generated forum's Chinese and English content.

Posts must read like forum posts (extractors score keywords and line lengths, so lorem ipsum
would make every method look better or worse than it is), vary in length, and include the
one-word replies ("顶", "+1") that value filters must learn to drop. Every Chinese string here is
GBK-encodable and every English one cp1252-encodable, so the wrong-charset pages can be built.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["LANGUAGES", "Theme", "Writer"]


@dataclass(frozen=True)
class Theme:
    """A board's subject: its name, one-line description and the things its posts talk about."""

    name: str
    description: str
    nouns: tuple[str, ...]


_ZH_THEMES = (
    Theme("电脑硬件", "装机、显卡、显示器与外设讨论",
          ("显卡", "主板", "固态硬盘", "机械键盘", "显示器", "电源", "散热器", "内存条", "笔记本")),
    Theme("Linux 与开源", "发行版、服务器运维与开源软件",
          ("Ubuntu", "内核", "服务器", "Docker", "防火墙", "软路由", "树莓派", "开源项目")),
    Theme("手机数码", "手机、耳机、平板与智能设备",
          ("手机", "蓝牙耳机", "平板", "充电宝", "智能手表", "路由器", "阅读器")),
    Theme("装修家居", "装修经验、家具家电与收纳",
          ("瓷砖", "橱柜", "木地板", "热水器", "空调", "窗帘", "洗碗机")),
    Theme("旅游摄影", "游记、攻略与摄影器材",
          ("镜头", "三脚架", "相机", "无人机", "登山包", "民宿")),
    Theme("生活杂谈", "工作、生活与闲聊",
          ("租房", "通勤", "跑步机", "健身卡", "猫粮", "电动车")),
)

_EN_THEMES = (
    Theme("Hardware", "CPUs, GPUs, monitors and peripherals",
          ("graphics card", "motherboard", "SSD", "mechanical keyboard", "monitor",
           "power supply", "CPU cooler", "laptop")),
    Theme("Linux & Open Source", "Distributions, servers and free software",
          ("Debian server", "kernel", "Docker setup", "firewall", "Raspberry Pi", "home router",
           "NAS")),
    Theme("Photography", "Cameras, lenses, trips and critique",
          ("lens", "tripod", "mirrorless camera", "drone", "camera bag", "flash")),
    Theme("Home Improvement", "Renovation, appliances and DIY",
          ("water heater", "kitchen cabinet", "laminate floor", "heat pump", "dishwasher",
           "window blind")),
    Theme("Cooking", "Recipes, kitchen gear and café talk",
          ("cast iron pan", "sourdough starter", "pressure cooker", "chef’s knife",
           "espresso machine")),
    Theme("Off-topic", "Anything that fits nowhere else",
          ("commute", "bike", "pair of running shoes", "standing desk", "houseplant")),
)

_ZH_SENTENCES = (
    "我的{x}用了快{n}年了，最近开始出问题。",
    "之前在网上查了很多资料，说法都不太一样。",
    "有没有懂行的朋友帮忙分析一下原因？",
    "个人觉得{x}这东西还是要看实际需求，不要盲目跟风。",
    "昨天晚上折腾到两点多，总算是搞定了。",
    "先说结论：{x}值得买，但是最好等打折。",
    "楼主说的情况我也遇到过，后来换了一个{x}就好了。",
    "价格方面大概在{m}元左右，性价比还可以。",
    "售后态度很一般，打了三次电话才有人处理。",
    "建议先备份数据再动手，不然出了问题哭都来不及。",
    "这个问题其实跟{x}关系不大，主要是设置没弄对。",
    "我朋友也在用{x}，他的体验跟我完全相反。",
    "上周去实体店看了一下，实物比图片好看不少。",
    "顺便问一句，现在入手{x}是不是有点晚了？",
    "网上的教程大多是几年前的，很多步骤已经不适用了。",
    "说实话，刚开始我也是一头雾水。",
    "慢慢摸索了一个多月，总结出下面几点经验。",
    "第一，不要贪便宜买来路不明的{x}；第二，买之前看清楚参数和保修条款；第三，遇到问题先看官方文档。",
    "目前用下来还算稳定，没有出现过死机的情况。",
    "噪音比预想的要大一些，晚上能明显听到。",
    "外观设计挺好看的，做工也比较扎实。",
    "如果预算充足的话，我更推荐上一档的型号。",
    "这几天天气太热，{x}的温度一直降不下来。",
    "感谢各位的回复，问题已经解决了。",
    "以后有新的进展我再上来更新。",
    "希望对有同样问题的朋友有所帮助。",
    "我是新手，说得不对的地方请大家指正。",
    "身边不少同事都换成了{x}，评价普遍不错。",
    "跟客服沟通之后，对方答应免费换一个新的。",
    "另外提醒一下，快递送到记得当面验货。",
    "现在回头看，当初的选择还是挺正确的。",
    "最大的问题是配件太难买，只能在网上慢慢等。",
    "用久了才发现，细节上的体验差距还是挺大的。",
    "{x}的说明书写得非常简略，很多功能都要自己试。",
    "各位觉得{x}和{y}哪个更适合日常使用？",
    "我这边的网络环境比较复杂，不确定是不是这个原因。",
    "重装了一遍系统，问题依旧。",
    "论坛里搜了一圈，没有找到类似的帖子。",
    "一开始以为是{x}坏了，拆开一看原来是接触不良。",
    "周末抽空把{x}彻底清理了一遍，效果立竿见影。",
    "价格从{m}元一路降下来，现在入手正合适。",
    "同样的配置，{y}的表现明显更好一些。",
    "老婆一直嫌{x}太占地方，只好先收起来了。",
    "用了{n}个星期，整体感觉中规中矩。",
)

_ZH_SHORT = (
    "顶", "沙发", "+1", "谢谢分享", "支持一下", "学习了", "mark", "路过", "好帖，收藏了",
    "楼主辛苦了", "同问", "帮顶", "感谢楼主", "围观", "前排", "已收藏，慢慢看", "说得对", "666",
)

_ZH_TITLES = (
    "求助：{x}突然{p}，怎么办？",
    "【分享】我的{x}使用心得",
    "预算{m}元，{x}怎么选？",
    "新手请教一个关于{x}的问题",
    "{x}到底值不值得买？",
    "记录一次{x}{p}的排查过程",
    "【讨论】{x}和{y}哪个好？",
    "出个闲置{x}，九成新",
    "大家的{x}都用了多久？",
    "{x}{p}，售后说是正常现象？",
    "终于把{x}的问题解决了",
    "关于{x}的几点经验总结",
    "入手{x}一个月的真实感受",
    "{x}{p}，有遇到过的吗",
)

_ZH_PROBLEMS = ("无法开机", "发热严重", "频繁断线", "没有声音", "反应很慢", "自动重启")

_ZH_NAMES = (
    "风中的承诺", "半夏微凉", "一只小菜鸟", "北京土著", "码农老张", "深夜食堂", "路人甲",
    "Linux爱好者", "摄影小白", "装修进行时", "老猫", "阿杰", "小鱼儿", "江南烟雨", "技术宅",
    "xiaoming88", "tonyzhang", "sunny_day", "kevin2008", "lucky_star", "天天向上", "青山依旧",
    "数码控", "夜猫子", "大白菜", "铁血丹心", "清风徐来", "山城棒棒", "东北老王", "南方小镇",
)

_ZH_SIGNATURES = (
    "生活不止眼前的苟且，还有诗和远方。",
    "代码写得好，头发掉得少。",
    "人生苦短，我用 Python",
    "淡定，淡定……",
    "每天进步一点点",
    "有问题请先搜索，再发帖。",
    "宁静致远",
    "本人所有回复仅代表个人观点",
)

_ZH_GROUPS = ((50, "新手上路"), (200, "注册会员"), (500, "中级会员"), (1000, "高级会员"),
              (3000, "金牌会员"), (10**9, "论坛元老"))

_EN_SENTENCES = (
    "I’ve had my {x} for about {n} years and it started acting up last week.",
    "Tried everything in the wiki, no luck so far.",
    "Has anyone here run into the same thing with a {x}?",
    "Honestly, it depends on what you need the {x} for.",
    "Spent the whole evening on it and finally got it working.",
    "Short answer: the {x} is worth it, but wait for a sale.",
    "I had the exact same problem – swapping the {x} fixed it for me.",
    "Price-wise it was around €{m}, which seemed fair.",
    "Support was slow; it took three emails to get a reply.",
    "Back up your data before you touch anything.",
    "I don't think the {x} is the culprit here, more likely a config issue.",
    "A friend of mine uses a {x} and has the opposite experience.",
    "Saw one in a shop last weekend and it looks better in person.",
    "Quick question: is it too late to buy a {x} now?",
    "Most guides online are a few years old and half the steps no longer apply.",
    "To be fair, I was completely lost at first.",
    "After a month of trial and error, here’s what I learned.",
    "First, don’t cheap out on a {x} from an unknown seller; second, read the warranty terms "
    "before you buy; third, check the official docs before asking around — it’s faster.",
    "It’s been stable so far, no crashes at all.",
    "It’s a bit louder than I expected, especially at night.",
    "Build quality is solid and it looks great on the desk.",
    "If budget allows, I’d go one tier up.",
    "Thanks everyone for the replies, problem solved.",
    "I’ll post an update if anything changes.",
    "Hope this helps someone with the same issue.",
    "I’m new here, so correct me if I got anything wrong.",
    "The manual for the {x} is useless; you have to figure most things out yourself.",
    "Would you pick the {x} or the {y} for everyday use?",
    "Reinstalled everything from scratch, same result.",
    "Searched the forum and couldn’t find a similar thread.",
    "Not sure if it matters, but my setup is a bit unusual.",
    "The naïve fix didn’t work, so I dug a little deeper.",
    "The Q&A section on the vendor's site wasn't much help either.",
    "My first thought was \"it's the cable\", and of course it wasn't.",
    "Turns out the {x} was fine; the real problem was the {y}.",
    "Cleaned the {x} properly over the weekend and the difference is night and day.",
    "The price dropped from €{m} to something reasonable, so now is a good time.",
    "My partner keeps complaining that the {x} takes up too much space.",
    "After {n} weeks with it, I’d call it solid but unspectacular.",
)

_EN_SHORT = (
    "+1", "Thanks!", "Same here.", "bump", "Great write-up, thanks for sharing.", "This.",
    "Following.", "Subscribed.", "Nice!", "Thanks, that fixed it.", "Me too.", "Good to know.",
)

_EN_TITLES = (
    "Help: {x} keeps {p}",
    "[Guide] Getting started with a {x}",
    "{x} vs {y} – which one?",
    "Anyone else having trouble with their {x}?",
    "Finally fixed my {x}",
    "Budget {x} recommendations?",
    "My {x} build log",
    "Is a {x} still worth it in 2024?",
    "{x} {p} after the update",
    "Selling: barely used {x}",
    "Lessons learned from a year with a {x}",
    "Which {x} do you use, and why?",
)

_EN_PROBLEMS = ("shutting down", "overheating", "dropping the connection",
                "making a clicking noise", "running slow", "rebooting at random")

_EN_NAMES = (
    "jdoe", "quietstorm", "bytewrangler", "Marta_K", "old_timer", "nightowl42", "pixelpusher",
    "greybeard", "tinkerer", "SarahB", "mike.r", "Jürgen", "lena_v", "dev_null", "kettle",
    "RustyNail", "ocean_breeze", "captain_obvious", "fern", "hobbyist", "Zoë", "tom_h",
    "sourdough_sam", "lazy_admin", "K. Nakamura", "phoenix", "ant", "wanderer",
)

_EN_SIGNATURES = (
    "Sent from my toaster.",
    "“Simplicity is prerequisite for reliability.” — Dijkstra",
    "Debian stable since 2009.",
    "My gear: too much of it.",
    "Please mark solved threads as [SOLVED].",
    "Measure twice, cut once.",
)

_EN_GROUPS = ((50, "New member"), (500, "Registered User"), (2000, "Regular"),
              (10**9, "Veteran"))

_EN_LOCATIONS = ("Berlin", "Leeds", "Portland, OR", "Toronto", "Melbourne", "São Paulo",
                 "Lyon", "Kraków", "Austin, TX", "Dublin")


@dataclass(frozen=True)
class _Pools:
    themes: tuple[Theme, ...]
    sentences: tuple[str, ...]
    short: tuple[str, ...]
    titles: tuple[str, ...]
    problems: tuple[str, ...]
    names: tuple[str, ...]
    signatures: tuple[str, ...]
    groups: tuple[tuple[int, str], ...]
    joiner: str


_POOLS = {
    "zh": _Pools(_ZH_THEMES, _ZH_SENTENCES, _ZH_SHORT, _ZH_TITLES, _ZH_PROBLEMS, _ZH_NAMES,
                 _ZH_SIGNATURES, _ZH_GROUPS, ""),
    "en": _Pools(_EN_THEMES, _EN_SENTENCES, _EN_SHORT, _EN_TITLES, _EN_PROBLEMS, _EN_NAMES,
                 _EN_SIGNATURES, _EN_GROUPS, " "),
}

#: Languages the writer knows.
LANGUAGES = tuple(_POOLS)


class Writer:
    """Makes titles, posts, user names and signatures in one language from a seeded RNG."""

    def __init__(self, lang: str, rng: random.Random) -> None:
        self.lang = lang
        self._pools = _POOLS[lang]
        self._rng = rng

    def themes(self, count: int) -> list[Theme]:
        """``count`` distinct board themes; past the pool, names get a numbered second section."""
        base = self._pools.themes
        themes = []
        for i in range(count):
            theme = base[i % len(base)]
            if i >= len(base):
                number = i // len(base) + 1
                suffix = f" {number}区" if self.lang == "zh" else f" {number}"
                theme = Theme(theme.name + suffix, theme.description, theme.nouns)
            themes.append(theme)
        return themes

    def _fill(self, template: str, theme: Theme) -> str:
        rng = self._rng
        x, y = rng.sample(theme.nouns, 2)
        return template.format(
            x=x, y=y, n=rng.randint(2, 8), m=rng.choice((199, 299, 499, 799, 1299, 2499, 3999)),
            p=rng.choice(self._pools.problems),
        )

    def title(self, theme: Theme, taken: set[str]) -> str:
        """A thread title about one of the theme's nouns, not in ``taken`` (and added to it).

        Once the pool runs dry a number is appended, as posters do for a series ("（2）").
        """
        for _ in range(30):
            title = self._fill(self._rng.choice(self._pools.titles), theme)
            if title not in taken:
                break
        else:
            base, n = title, 2
            while (title := f"{base}（{n}）" if self.lang == "zh" else f"{base} ({n})") in taken:
                n += 1
        taken.add(title)
        return title

    def short_reply(self) -> str:
        """A one-line reply with almost no content ("顶", "+1")."""
        return self._rng.choice(self._pools.short)

    def paragraphs(self, theme: Theme, *, first: bool) -> tuple[str, ...]:
        """A post body as paragraphs, no sentence twice; first posts run longer than replies."""
        rng = self._rng
        count = rng.randint(2, 4) if first else rng.choices((1, 2, 3), (6, 3, 1))[0]
        sizes = [rng.randint(1, 4 if first else 3) for _ in range(count)]
        sentences = iter(rng.sample(self._pools.sentences, sum(sizes)))
        return tuple(
            self._pools.joiner.join(self._fill(next(sentences), theme) for _ in range(size))
            for size in sizes
        )

    def names(self, count: int) -> list[str]:
        """``count`` distinct user names, drawn from the pool, then numbered variants."""
        pool = list(self._pools.names)
        self._rng.shuffle(pool)
        names = pool[:count]
        n = 0
        while len(names) < count:
            candidate = f"{pool[n % len(pool)]}{self._rng.randint(10, 99)}"
            if candidate not in names:
                names.append(candidate)
            n += 1
        return names

    def signature(self) -> str:
        """A user's signature line."""
        return self._rng.choice(self._pools.signatures)

    def location(self) -> str:
        """Where a user says they live (English profiles only show it)."""
        return self._rng.choice(_EN_LOCATIONS)

    def group(self, credits: int) -> str:
        """The user group or rank a forum gives for ``credits`` points."""
        return next(name for limit, name in self._pools.groups if credits < limit)
