"""drf-spectacular integration: the schema class, its field extensions, the schema and docs views.

The app config imports this module when drf-spectacular is installed, which registers the
extensions and checks.
"""

from . import checks  # noqa: F401 -- importing registers the set-up checks
from .components import ERROR_ITEM_SCHEMA, PROBLEM_SCHEMA
from .extensions import RenamedFieldExtension
from .schema import DEPRECATION_HEADERS, ProblemAutoSchema, ProblemSchemaMixin

__all__ = [
    "DEPRECATION_HEADERS",
    "ERROR_ITEM_SCHEMA",
    "PROBLEM_SCHEMA",
    "ProblemAutoSchema",
    "ProblemSchemaMixin",
    "RenamedFieldExtension",
]
