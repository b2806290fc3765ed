"""What a comparison reports: one :class:`Finding` per difference, breaking or compatible."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["breaking", "compatible"]
BREAKING: Severity = "breaking"
COMPATIBLE: Severity = "compatible"
#: Which way the data flows: a client sends a request and reads a response.
Direction = Literal["request", "response"]


@dataclass(frozen=True)
class Finding:
    """One difference between the two documents, where it is and whether it breaks clients."""

    severity: Severity
    location: str
    message: str

    @property
    def breaking(self) -> bool:
        return self.severity == BREAKING

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"
