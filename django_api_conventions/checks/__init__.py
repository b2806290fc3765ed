"""The checks of the project as a whole: its settings, its wiring, its URLs. Each part keeps its
own checks beside its code (``problems/checks.py`` ...); all share ``check_messages.MESSAGES``."""

# Importing a module registers its checks: a project imports nothing from here.
from . import routes, settings, setup  # noqa: F401

__all__: list[str] = []
