"""Decoding and parsing pages once: charsets that are declared, missing or wrong; bad input."""

from __future__ import annotations

import pytest

from forumcrawl.document import Document, DocumentError, decode_html, site_of

ZH = "这是一个关于论坛爬虫的帖子，我们来看看大家怎么说。楼主说得很有道理，谢谢分享！"
ZH_TW = "這是一個關於論壇爬蟲的帖子，我們來看看大家怎麼說。樓主說得很有道理，謝謝分享！"


def page(body: str, meta: str = "", title: str = "标题") -> str:
    return f"<html><head>{meta}<title>{title}</title></head><body><p>{body}</p></body></html>"


@pytest.mark.parametrize("codec", ["gbk", "gb2312", "gb18030"])
def test_declared_chinese_charsets_are_read_as_gb18030(codec):
    body = page(ZH, f'<meta charset="{codec}">').encode(codec)
    text, used = decode_html(body)
    assert used == "gb18030"
    assert ZH in text


def test_gbk_header_wins_over_missing_meta():
    body = page(ZH).encode("gbk")
    doc = Document.from_bytes(body, "http://bbs.example.cn/t/1", "text/html; charset=GBK")
    assert ZH in doc.html
    assert doc.title == "标题"


def test_utf8_page_that_declares_gb2312_decodes_as_utf8():
    body = page(ZH, '<meta http-equiv="Content-Type" content="text/html; charset=gb2312">').encode("utf-8")
    text, used = decode_html(body, "text/html; charset=gb2312")
    assert used == "utf-8"
    assert ZH in text


def test_gbk_page_served_with_a_utf8_header_decodes_right():
    body = page(ZH).encode("gbk")
    text, used = decode_html(body, "text/html; charset=utf-8")
    assert used == "gb18030"
    assert ZH in text


def test_undeclared_big5_is_told_from_gbk():
    text, used = decode_html(page(ZH_TW, title="標題").encode("big5"))
    assert used.startswith("big5")
    assert ZH_TW in text


def test_undeclared_gbk_is_told_from_big5():
    text, used = decode_html(page(ZH).encode("gbk"))
    assert used == "gb18030"
    assert ZH in text


def test_bom_wins():
    text, used = decode_html(b"\xef\xbb\xbf" + page(ZH, "<meta charset=gbk>").encode("utf-8"))
    assert used == "utf-8"
    assert ZH in text


@pytest.mark.parametrize(
    "body",
    [b"\x89PNG\r\n\x1a\n" + bytes(200), b"%PDF-1.7\n" + bytes(range(256)), bytes(range(256)) * 4],
)
def test_binary_bodies_are_refused_clearly(body):
    with pytest.raises(DocumentError, match="binary"):
        Document.from_bytes(body, "http://x.test/a")


def test_gigantic_pages_are_refused_before_decoding():
    with pytest.raises(DocumentError, match="exceeds"):
        Document.from_bytes(b"<p>" + b"a" * 2000, "http://x.test/", max_bytes=1000)


@pytest.mark.parametrize("html", ["", "   \n", "<!-- only a comment -->"])
def test_empty_pages_have_no_tree(html):
    doc = Document.from_text(html, "http://x.test/")
    assert doc.tree is None or not doc.tree.text_content().strip()
    assert doc.title == ""


def test_truncated_and_malformed_html_still_parses():
    doc = Document.from_text("<html><body><div class=post><p>第一楼的内容<p>第二段<td>坏的表格", "http://x.test/")
    assert doc.tree is not None
    assert "第二段" in doc.tree.text_content()


def test_xml_declaration_and_control_characters_are_tolerated():
    html = '<?xml version="1.0" encoding="utf-8"?><html><body><p>ok\x00 fine</p></body></html>'
    doc = Document.from_text(html)
    assert doc.tree is not None
    assert "ok fine" in doc.tree.text_content()


def test_site_keeps_non_default_ports_and_lowercases():
    assert site_of("http://BBS.Example.com:8080/a?b") == "bbs.example.com:8080"
    assert site_of("https://bbs.example.com/") == "bbs.example.com"
    assert site_of("not a url") == ""


def test_latin1_page_declared_utf8_is_not_read_as_chinese():
    body = page("Jürgen schrieb: Grüße aus Köln, à bientôt", "<meta charset=utf-8>", title="Forum").encode("cp1252")
    text, used = decode_html(body, "text/html; charset=utf-8")
    assert used == "cp1252"
    assert "Jürgen" in text and "Grüße" in text


def test_declared_western_charset_is_kept():
    body = page("Jürgen", "<meta charset=iso-8859-1>", title="Forum").encode("latin-1")
    text, used = decode_html(body)
    assert "Jürgen" in text


def test_gbk_page_with_one_bad_byte_stays_gbk():
    body = page(ZH * 5, "<meta charset=gb2312>").encode("gbk")
    body = body.replace("分享".encode("gbk"), b"\x81\x20", 1)
    text, used = decode_html(body)
    assert used == "gb18030"
    assert "楼主说得很有道理" in text
