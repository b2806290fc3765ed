"""Signals of the idempotency layer. Each is sent with ``request``, ``scope`` and ``key_hash``.

A keyed request sends exactly one of ``claimed``, ``replayed``, ``conflict``, ``mismatch``,
``lease_taken_over`` and ``store_unavailable``; ``store_unavailable`` may follow ``claimed`` or
``lease_taken_over`` when the store goes away while the view runs.

The raw key is never sent: ``key_hash`` is a short SHA-256 of scope and key, the same one
the log lines carry.
"""

from django.dispatch import Signal

__all__ = ["claimed", "conflict", "lease_taken_over", "mismatch", "replayed", "store_unavailable"]

#: The key was claimed and its request runs the view: the first request with the key, or a
#: retry of one whose view failed or did not keep its answer (a miss).
claimed = Signal()
#: A stored response answered a retry.
replayed = Signal()
#: A retry arrived while the first request with its key was still running (409).
conflict = Signal()
#: A key arrived with another method, path, query or body than its first request (422).
mismatch = Signal()
#: A request took over a key whose previous owner's lease had passed (the worker died).
lease_taken_over = Signal()
#: The store could not be reached (or did not replicate a claim in time). Also sent with
#: ``fail_open`` (True: the request runs without its key) and ``error`` (the exception).
store_unavailable = Signal()
