"""State a view leaves on its request for the layers around it, kept with the stored response.

A replay never runs the view: each registered :class:`ReplayedRequestState` is stored under a
pseudo-header ``:<name>`` that is never sent, and restored on the replayed request (the
versioning part registers the deprecations its fields note).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReplayedRequestState:
    name: str
    #: A mark of what the request holds before the view runs.
    mark: Callable[[Any], Any]
    #: What the request gained since ``mark``, as text; ``None`` when nothing.
    dump_since: Callable[[Any, Any], str | None]
    #: Put a dump back on a (replayed) request.
    restore: Callable[[Any, str], None]

    @property
    def header(self) -> str:
        return f":{self.name}"


_registered: dict[str, ReplayedRequestState] = {}


def register_replayed_state(state: ReplayedRequestState) -> None:
    _registered[state.name] = state


def marks(request: Any) -> dict[str, Any]:
    return {name: state.mark(request) for name, state in _registered.items()}


def dumps_since(request: Any, taken: Mapping[str, Any]) -> dict[str, str]:
    """The pseudo-headers to store with the response: what each state gained since ``taken``."""
    dumped = {}
    for name, state in _registered.items():
        if name in taken and (text := state.dump_since(request, taken[name])) is not None:
            dumped[state.header] = text
    return dumped


def restore_and_strip(request: Any | None, headers: Mapping[str, str]) -> dict[str, str]:
    """Restore every stored state on ``request``; the headers without the pseudo-headers."""
    stored_states = [state for state in _registered.values() if state.header in headers]
    if not stored_states:  # what the view left on its request was nothing the states keep
        return dict(headers)
    for state in stored_states:
        if request is not None:
            state.restore(request, headers[state.header])
    pseudo_headers = {state.header for state in stored_states}
    return {name: value for name, value in headers.items() if name not in pseudo_headers}
