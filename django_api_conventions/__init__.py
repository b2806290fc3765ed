"""A rigorous HTTP API contract for Django REST framework services."""

from ._moved import install as _install_moved_modules

__version__ = "0.1.0"

_install_moved_modules()
