"""What `mkdocs build --strict` does not check: README.md's relative links, the changelog's
inclusion into the docs, and the code samples of the docs (the tutorial has its own test,
tests/test_tutorial.py).

- Every relative link of README.md names a file of the repository, and its `#anchor`, if any, a
  heading of that file. CHANGELOG.md has none: it is read at the repository's root and, included,
  as docs/changelog.md, where a relative link would point elsewhere.
- docs/changelog.md includes CHANGELOG.md (pymdownx.snippets, as mkdocs.yml configures it)
  instead of copying it.
- Every ```python block of the docs pages and of README.md compiles, unless an HTML comment
  `<!-- not compiled: <why> -->` right before it says why not (a signature, say).
- Every `from django_api_conventions... import name` of those blocks (the tutorial's included)
  imports, and every string that is a dotted path into the package (a middleware, a handler, a
  class of `REST_FRAMEWORK`) names something that exists.
"""

from __future__ import annotations

import ast
import importlib
import re
import unicodedata
from pathlib import Path

import pytest
from django.utils.module_loading import import_string

from django_api_conventions.check_messages import MESSAGES

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
LINKED_FILES = [ROOT / "README.md"]

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```[^\n]*\n.*?^```", re.M | re.S)
# A block's info string may carry options after the language: a title (```python title="x.py").
_PYTHON_BLOCK = re.compile(
    r"(?:<!-- (?P<skip>not compiled: [^>]*)-->\n)?^```python(?: [^\n]*)?\n(?P<code>.*?)^```", re.M | re.S
)
_DOTTED_PATH = re.compile(r"django_api_conventions(\.[A-Za-z_][A-Za-z0-9_]*)+")


def slug(heading: str) -> str:
    """The anchor MkDocs gives a heading (Python-Markdown's toc ``slugify``), markup removed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(markdown: str) -> set[str]:
    prose = _FENCE.sub("", markdown)
    return {slug(match[1]) for match in re.finditer(r"^#{1,6} (.+?)\s*#*$", prose, re.M)}


def relative_links(path: Path) -> list[str]:
    prose = _FENCE.sub("", path.read_text())
    prose = re.sub(r"`[^`\n]*`", "", prose)
    return [target for target in _LINK.findall(prose) if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


@pytest.mark.parametrize("path", LINKED_FILES, ids=lambda path: path.name)
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target}: no file {linked.relative_to(ROOT)}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
            broken.append(f"{target}: no heading with the anchor #{anchor} in {linked.name}")
    assert not broken, f"broken links in {path.name}: {broken}"


def test_titled_blocks_are_samples_too() -> None:
    titled = [code for _, _, code in python_blocks(ROOT / "docs" / "tutorial.md") if "class OrderViewSet" in code]
    assert len(titled) == 1, "the tutorial's orders/views.py is not read as a sample"


def test_the_link_checker_sees_links_and_anchors() -> None:
    assert slug("The `Idempotency-Key` header") == "the-idempotency-key-header"
    assert slug("Migrating from DRF's CursorPagination") == "migrating-from-drfs-cursorpagination"
    assert "docs/tutorial.md" in relative_links(ROOT / "README.md")


def python_blocks(path: Path) -> list[tuple[int, str | None, str]]:
    text = path.read_text()
    return [
        (text[: match.start("code")].count("\n") + 1, match["skip"], match["code"])
        for match in _PYTHON_BLOCK.finditer(text)
    ]


SAMPLES = [
    pytest.param(path, line, skip, code, id=f"{path.name}:{line}")
    for path in [*PAGES, ROOT / "README.md"]
    for line, skip, code in python_blocks(path)
]


@pytest.mark.parametrize(("path", "line", "skip", "code"), SAMPLES)
def test_python_samples_compile_and_name_what_exists(path: Path, line: int, skip: str | None, code: str) -> None:
    if skip:
        assert not path.name.startswith("tutorial"), "every block of the tutorial is code"
        return
    tree = ast.parse(compile(code, f"{path.name}:{line}", "exec", ast.PyCF_ONLY_AST))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django_api_conventions"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name) or _is_module(f"{node.module}.{alias.name}"), (
                    f"{path.name}:{line}: {node.module} has no {alias.name}"
                )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _CHECK_ID.fullmatch(node.value):
            assert node.value.partition(".")[2] in CHECK_IDS, f"{path.name}:{line}: no check {node.value}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED_PATH.fullmatch(node.value):
            assert _is_module(node.value) or _imports(node.value), f"{path.name}:{line}: {node.value} does not exist"


def test_blocks_can_opt_out_of_compiling_only_with_a_reason() -> None:
    skipped = [(path.name, line, skip) for path, line, skip, _ in (p.values for p in SAMPLES) if skip]
    assert all(skip.removeprefix("not compiled:").strip() for _, _, skip in skipped)
    assert len(skipped) < len(SAMPLES) / 10, f"most samples must compile: {skipped}"


#: A system check's id, as SILENCED_SYSTEM_CHECKS names it.
_CHECK_ID = re.compile(r"django_api_conventions\.[EWI]\d{3}")
CHECK_IDS = {check_id for check_id, _name in MESSAGES}


def _is_module(dotted: str) -> bool:
    try:
        importlib.import_module(dotted)
    except ImportError:
        return False
    return True


def _imports(dotted: str) -> bool:
    try:
        import_string(dotted)
    except ImportError:
        return False
    return True


def test_the_changelog_has_no_relative_links() -> None:
    assert relative_links(ROOT / "CHANGELOG.md") == []


def _snippets_config() -> dict[str, object]:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    for extension in config["markdown_extensions"]:
        if isinstance(extension, dict) and "pymdownx.snippets" in extension:
            return dict(extension["pymdownx.snippets"])
    pytest.fail("mkdocs.yml does not enable pymdownx.snippets")


def test_the_changelog_page_includes_the_changelog() -> None:
    """The page is the include line alone, and renders as CHANGELOG.md with mkdocs.yml's settings."""
    markdown = pytest.importorskip("markdown")
    pytest.importorskip("pymdownx.snippets")
    page = (ROOT / "docs" / "changelog.md").read_text()
    assert page.strip() == '--8<-- "CHANGELOG.md"', "docs/changelog.md must include CHANGELOG.md, not copy it"
    config = _snippets_config()
    assert config.get("check_paths") is True, "a missing CHANGELOG.md must fail the docs build"
    # base_path is read from the directory mkdocs runs in: the repository's root.
    config["base_path"] = [str(ROOT / path) for path in config["base_path"]]
    html = markdown.markdown(page, extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": config})
    body = (ROOT / "CHANGELOG.md").read_text()
    for heading in re.findall(r"^#{1,4} (.+)$", body, re.M):
        plain = heading.replace("`", "")
        assert plain in html.replace("<code>", "").replace("</code>", ""), f"{heading!r} missing from the page"
