"""What every part of the package shares about requests and responses; imports only ``conf``."""

__all__: list[str] = []
