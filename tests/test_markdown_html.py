"""The Markdown of problem type descriptions, as their pages render it."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client
from django.utils.safestring import SafeString

from django_api_conventions.problems.markdown import markdown_to_html
from django_api_conventions.problems.types import problem_types


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("`errors` names each parameter.", "<p><code>errors</code> names each parameter.</p>"),
        (
            "*emphasis*, _emphasis_ and **strong**.",
            "<p><em>emphasis</em>, <em>emphasis</em> and <strong>strong</strong>.</p>",
        ),
        (
            "[the guide](https://example.com/a_b?x=1&y=2)",
            '<p><a href="https://example.com/a_b?x=1&amp;y=2">the guide</a></p>',
        ),
        ("[a page](/problems/not-found)", '<p><a href="/problems/not-found">a page</a></p>'),
        ("[write](mailto:api@example.com)", '<p><a href="mailto:api@example.com">write</a></p>'),
        ("One\nparagraph.\n\nAnother.", "<p>One paragraph.</p>\n<p>Another.</p>"),
        (
            "Either:\n\n- `a`, or\n  more\n* *b*",
            "<p>Either:</p>\n<ul><li><code>a</code>, or more</li><li><em>b</em></li></ul>",
        ),
        # Underscores inside words and lone stars are text, as in CommonMark.
        ("DATA_UPLOAD_MAX_NUMBER_FIELDS, 2 * 3 * 4", "<p>DATA_UPLOAD_MAX_NUMBER_FIELDS, 2 * 3 * 4</p>"),
        # Nothing inside a code span is Markdown, and it is escaped.
        ("`*a* <b>`", "<p><code>*a* &lt;b&gt;</code></p>"),
        ("``a ` b``", "<p><code>a ` b</code></p>"),
        (
            "[`code` in a link](https://example.com)",
            '<p><a href="https://example.com"><code>code</code> in a link</a></p>',
        ),
    ],
)
def test_the_subset(text: str, expected: str) -> None:
    html = markdown_to_html(text)
    assert isinstance(html, SafeString)
    assert html == expected


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '[x](https://example.com/"onmouseover="alert(1))',
        "[x](javascript:alert%281%29)",
        "[x](JaVaScRiPt:alert%281%29)",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](\x01javascript:alert%281%29)",
        "[x](java\tscript:alert%281%29)",
        "[x](./a:javascript:alert%281%29)",
        "`</code><script>alert(1)</script>`",
        "*<b>*",
        "\ue0000\ue000",
    ],
)
def test_nothing_in_the_text_becomes_markup(text: str) -> None:
    html = markdown_to_html(text)
    # Every tag is one the conversion writes; the only attribute is a link's quoted href.
    for tag in re.findall(r"<[^>]*>", html):
        assert re.fullmatch(r'</?(p|ul|li|code|em|strong)>|<a href="[^"<>]*">|</a>', tag), tag
    for href in re.findall(r'href="([^"]*)"', html):
        scheme = re.match(r"([a-z][a-z0-9+.-]*):", unescape(href), re.I)
        assert scheme is None or scheme[1] in ("http", "https", "mailto"), href
        assert not any(ord(character) <= 0x20 for character in unescape(href)), href


def test_unsafe_links_keep_their_text() -> None:
    assert markdown_to_html("[the text](javascript:alert%281%29)") == "<p>the text</p>"


def test_problem_type_pages_render_the_markdown() -> None:
    page = Client().get("/problems/bad-request").content.decode()
    assert "<code>detail</code> says what was wrong" in page
    assert "`" not in page


def test_no_built_in_description_leaves_markdown_behind() -> None:
    # The page of every type: no backtick, star or bracket of the Markdown source shows.
    page = Client().get("/problems/").content.decode()
    for problem_type in problem_types:
        assert problem_type.slug in page
    assert "`" not in page and "**" not in page and "](" not in page


def test_the_json_variant_keeps_the_markdown_source() -> None:
    answer = Client().get("/problems/bad-request", headers={"Accept": "application/json"})
    assert answer.json()["description"] == "The request could not be understood. `detail` says what was wrong."
