"""Signals of the idempotency layer. Each is sent with ``request``, ``scope`` and ``key_hash``.

The raw key is never sent: ``key_hash`` is a short SHA-256 of scope and key, the same one
the log lines carry.
"""

from django.dispatch import Signal

#: A stored response answered a retry.
replayed = Signal()
#: A retry arrived while the first request with its key was still running (409).
conflict = Signal()
#: A key arrived with another method, path, query or body than its first request (422).
mismatch = Signal()
#: A request took over a key whose previous owner's lease had passed (the worker died).
lease_taken_over = Signal()
