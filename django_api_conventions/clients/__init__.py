"""Who is calling: the client id behind throttling, idempotency scopes and usage logs."""

from .client_ids import ANONYMOUS_CLIENT_ID, default_client_id_resolver, get_client_id
from .throttling import ClientRateThrottle

__all__ = ["ANONYMOUS_CLIENT_ID", "ClientRateThrottle", "default_client_id_resolver", "get_client_id"]
