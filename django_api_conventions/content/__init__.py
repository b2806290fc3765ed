"""What a request body and an ``Accept`` header may be: strict JSON, exact numbers, content
negotiation that never hides the real answer."""

from .fields import StrictDecimalField, StrictIntegerField
from .negotiation import FallbackContentNegotiation
from .parsers import StrictJSONParser, max_body_bytes

__all__ = [
    "FallbackContentNegotiation",
    "StrictDecimalField",
    "StrictIntegerField",
    "StrictJSONParser",
    "max_body_bytes",
]
