"""The checks of the project as a whole: its settings, its middleware and handlers, its URLs.

Each part keeps its own checks next to its code (``problems/checks.py``, ``idempotency/checks.py``,
``pagination/checks.py``, ``versioning/checks.py``, ``contrib/spectacular/checks.py``) and
registers them there, when the app config imports the module. All share one table of ids,
messages and hints, :data:`~django_api_conventions.check_messages.MESSAGES`.
"""

from __future__ import annotations

from ..check_messages import MESSAGES as MESSAGES
from ..check_messages import message as message
from .routes import check_url_conventions as check_url_conventions
from .settings import SETTING_TYPES as SETTING_TYPES
from .settings import check_settings as check_settings
from .setup import MIDDLEWARE_ORDER as MIDDLEWARE_ORDER
from .setup import check_drf_settings as check_drf_settings
from .setup import check_maintenance_switch as check_maintenance_switch
from .setup import check_middleware as check_middleware
from .setup import check_project_handlers as check_project_handlers
from .setup import check_view_parsers as check_view_parsers

# The checks run by themselves (importing this package registers them): a project imports
# nothing from here and finds the checks' ids in the settings reference. The aliased imports
# above are for the package's own tools and tests.
__all__: list[str] = []
