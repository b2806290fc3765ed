"""An operation's operationId, summary and description.

- operationId: the resource and the action without the URL version (``invoices_list``), so a
  client generated from v2 keeps its call sites in v3; an action of several methods gets
  drf-spectacular's word for each method after it (``invoices_notes_create``).
- description: the view's public documentation, never a docstring of this package's classes
  (drf-spectacular would describe a view by ``IdempotencyMixin``'s).
- summary: the first line of the action's docstring, else words from the path and the action.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from typing import Any

from drf_spectacular.settings import spectacular_settings

_STANDARD_ACTIONS = frozenset({"list", "create", "retrieve", "update", "partial_update", "destroy"})
_METHOD_ACTIONS = {"post": "create", "put": "update", "patch": "partial_update", "delete": "destroy"}
_VERBS = {
    "create": "Create",
    "retrieve": "Retrieve",
    "update": "Replace",
    "partial_update": "Update",
    "destroy": "Delete",
}
_PACKAGE = __name__.split(".")[0]


def _is_package_code(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return module == _PACKAGE or module.startswith(f"{_PACKAGE}.")


def public_doc(cls: type, kind: type) -> str:
    """The docstring of ``cls`` or its nearest base with one that is a ``kind`` (not a mixin) and
    not this package's, up to the library classes drf-spectacular excludes."""
    if spectacular_settings.DISABLE_DOCSTRING_DESCRIPTIONS:
        return ""
    barrier = set(spectacular_settings.GET_LIB_DOC_EXCLUDES())
    for klass in cls.__mro__:
        if klass in barrier:
            break
        if klass.__doc__ and issubclass(klass, kind) and not _is_package_code(klass):
            return _clean(klass.__doc__)
    return ""


def own_doc(function: Any) -> str:
    """The docstring written on ``function`` itself (not inherited), unless this package wrote it."""
    if spectacular_settings.DISABLE_DOCSTRING_DESCRIPTIONS or function is None or _is_package_code(function):
        return ""
    doc = getattr(function, "__doc__", None)
    return _clean(doc) if isinstance(doc, str) and doc.strip() else ""


def _clean(doc: str) -> str:
    return "\n".join(line.rstrip() for line in inspect.cleandoc(doc).rstrip().split("\n"))


def action_of(view: Any, method: str, is_list: bool) -> str:
    """The DRF action an operation runs: the viewset's, else what the method and path say."""
    action = getattr(view, "action", None)
    if isinstance(action, str) and action:
        return action
    if method.lower() == "get":
        return "list" if is_list else "retrieve"
    return _METHOD_ACTIONS.get(method.lower(), method.lower())


def resource_tokens(path: str, path_prefix: str, view: Any, action: str) -> list[str]:
    """The path's words without its prefix, parameters, URL version and extra action's segment."""
    path = re.sub(r"\{[\w\-]+\}", "", re.sub(path_prefix, "", path, flags=re.IGNORECASE))
    version = getattr(getattr(view, "request", None), "version", None)
    words = [token.replace("-", "_") for token in path.split("/") if token and token != version]
    if action not in _STANDARD_ACTIONS and words:
        url_path = getattr(getattr(view, action, None), "url_path", action)
        if words[-1] in (url_path.replace("-", "_"), action):
            words = words[:-1]
    return words


def shares_its_action(view: Any, method: str, documented: Iterable[str]) -> bool:
    """Whether another of the ``documented`` methods of the view's route (DRF's ``action_map``)
    runs the same action."""
    action_map = getattr(view, "action_map", None) or {}
    action = action_map.get(method.lower())
    return action is not None and any(
        other != method.lower() and name == action and other in documented for other, name in action_map.items()
    )


def summary(words: list[str], action: str) -> str:
    """``List invoices``, ``Search invoices``, ``Create a payment of an invoice``..."""
    names = [word.replace("_", " ") for word in words] or ["resources"]
    collection, parents = names[-1], names[:-1]
    if action == "list":
        text = f"List {collection}"
    elif action in _VERBS:
        text = f"{_VERBS[action]} {_one(collection)}"
    else:
        text = f"{action.replace('_', ' ').capitalize()} {collection}"
    if parents:
        text += f" of {_one(parents[-1])}"
    return text


def _one(collection: str) -> str:
    word = collection
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    # "a user", "an invoice", "an order": a leading u is mostly said "you".
    return f"{'an' if word[:1] in tuple('aeio') else 'a'} {word}"
