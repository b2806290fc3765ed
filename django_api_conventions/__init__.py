"""A rigorous HTTP API contract for Django REST framework services."""

__version__ = "0.1.0"
