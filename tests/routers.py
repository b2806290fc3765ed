"""A router that would send every read to a replica, as services with read replicas do."""

from typing import Any


class EverythingToTheReplica:
    def db_for_read(self, model: Any, **hints: Any) -> str:
        return "replica-that-does-not-exist"

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return "replica-that-does-not-exist"
