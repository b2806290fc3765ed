"""The small Markdown of problem type descriptions, rendered to safe HTML for their pages:
paragraphs, bullet lists, code spans, strong, emphasis and links (http, https, mailto or
relative). The text is escaped first and converted second, so nothing in it can become markup
the conversion did not write.
"""

from __future__ import annotations

import html
import re

from django.utils.safestring import SafeString, mark_safe

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_BULLET = re.compile(r"[ \t]*[-*][ \t]+")
_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
_LINK = re.compile(r"\[([^\[\]]+)\]\(([^()\s]+)\)")
_STRONG = re.compile(r"(?<![\w*])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*])", re.S)
# Underscores inside a word (DATA_UPLOAD_MAX_NUMBER_FIELDS) are no emphasis, as in CommonMark.
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])", re.S)
_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):", re.I)
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
# Placeholders of the spans already converted: private-use characters, never in escaped text
# once removed from the input.
_HOLE = "\ue000"
_HOLE_PATTERN = re.compile(_HOLE + r"(\d+)" + _HOLE)


def markdown_to_html(text: str) -> SafeString:
    """``text`` (the Markdown subset above) as HTML: ``<p>`` and ``<ul>`` blocks."""
    text = text.replace(_HOLE, "").replace("\r\n", "\n").strip()
    blocks = [block for block in _BLANK_LINE.split(text) if block.strip()]
    return mark_safe("\n".join(_block(block) for block in blocks))  # noqa: S308 - built from escaped text


def _block(block: str) -> str:
    lines = block.split("\n")
    if not _BULLET.match(lines[0]):
        return f"<p>{_inline(' '.join(line.strip() for line in lines))}</p>"
    items: list[str] = []
    for line in lines:
        bullet = _BULLET.match(line)
        if bullet:
            items.append(line[bullet.end() :].strip())
        else:  # a continuation line of the item above
            items[-1] += " " + line.strip()
    return "<ul>" + "".join(f"<li>{_inline(item)}</li>" for item in items) + "</ul>"


def _inline(text: str) -> str:
    holes: list[str] = []

    def hole(markup: str) -> str:
        holes.append(markup)
        return f"{_HOLE}{len(holes) - 1}{_HOLE}"

    def code(match: re.Match[str]) -> str:
        return hole(f"<code>{html.escape(match[2].strip(), quote=False)}</code>")

    # Code spans first, on the raw text: nothing inside them is Markdown.
    text = _CODE.sub(code, text)
    text = html.escape(text, quote=True)
    text = _LINK.sub(lambda match: hole(_link(match[1], match[2])), text)
    text = _emphasis(text)
    while _HOLE_PATTERN.search(text):  # a link's text may hold a code span
        text = _HOLE_PATTERN.sub(lambda match: holes[int(match[1])], text)
    return text


def _link(label: str, url: str) -> str:
    # Both are escaped already: the URL's quotes are entities and cannot leave the attribute.
    if not _is_safe_url(html.unescape(url)):
        return _emphasis(label)
    return f'<a href="{url}">{_emphasis(label)}</a>'


def _is_safe_url(url: str) -> bool:
    # Browsers drop control characters and spaces from URLs, which could reveal a scheme.
    if any(ord(character) <= 0x20 or ord(character) == 0x7F for character in url):
        return False
    scheme = _SCHEME.match(url)
    if scheme is not None:
        return scheme[1].lower() in _SAFE_SCHEMES
    return ":" not in url.split("/", 1)[0]  # relative: no colon before the first slash


def _emphasis(text: str) -> str:
    text = _STRONG.sub(lambda match: f"<strong>{match[1]}</strong>", text)
    return _EMPHASIS.sub(lambda match: f"<em>{match[1] or match[2]}</em>", text)
