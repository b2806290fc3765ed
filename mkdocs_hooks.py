"""MkDocs hooks: the package's docstrings use Sphinx roles; the API reference shows them as code."""

from __future__ import annotations

import re
from typing import Any

# mkdocstrings renders ``:class:`~.middleware.Name``` as ":class:<code>~.middleware.Name</code>".
_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):<code>(~?)([^<]+)</code>")


def _code(match: re.Match[str]) -> str:
    tilde, target = match.groups()
    return f"<code>{target.rsplit('.', 1)[-1] if tilde else target.lstrip('.')}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    return _ROLE.sub(_code, html)
