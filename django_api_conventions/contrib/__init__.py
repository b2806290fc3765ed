"""Optional integrations with other packages, each in its own module."""

__all__: list[str] = []
