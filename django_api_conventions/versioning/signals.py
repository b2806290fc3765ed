"""Signals sent each time something deprecated is used, so teams can see who still calls it.

Each is sent with ``request``, ``client_id`` (see :func:`~django_api_conventions.clients.get_client_id`)
and ``deprecation`` (a :class:`~.lifecycle.Deprecation`); the same use is logged on the
``django_api_conventions.deprecation`` logger.
"""

from django.dispatch import Signal

__all__ = ["deprecated_endpoint_used", "deprecated_field_used", "deprecated_version_used", "version_brownout_refused"]

#: A request reached a deprecated version, or a retired one (``retired=True``, answered 410).
deprecated_version_used = Signal()
#: A request reached a deprecated endpoint or method, or a retired one (``retired=True``).
deprecated_endpoint_used = Signal()
#: A request body used the old name of a renamed field (``field`` is the old name).
deprecated_field_used = Signal()
#: A request reached a version during one of its brownouts and was answered 410 (``version``,
#: ``brownout``: the :class:`~.brownouts.Brownout` window).
version_brownout_refused = Signal()
