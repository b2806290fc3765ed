"""Stored answers encrypted at rest with AES-GCM under ``IDEMPOTENCY_ENCRYPTION_KEYS``.

The first key encrypts, every key decrypts (as ``cryptography``'s MultiFernet rotates keys): a
record names its key by a short id. The associated data binds a ciphertext to its record (scope,
key, status), so it cannot be copied onto another. ``cryptography`` is imported only when keys
are set. A record holds the status in clear, and as headers only :data:`ENCRYPTED`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from functools import lru_cache
from typing import Any

from ..conf import api_settings
from .stores.base import StoredResponse

#: The one "header" of an encrypted record: no HTTP header can have this name (RFC 9110 tokens
#: have no parentheses), so a record stored in clear is never taken for one.
ENCRYPTED = "(encrypted)"
ALGORITHM = "AES-256-GCM"
_KEY_BYTES = 32
_KEY_ID_BYTES = 4
_NONCE_BYTES = 12  # random per record: 2**32 records under one key keep the collision risk negligible


class StoredAnswerUnreadable(Exception):
    """No key of ``IDEMPOTENCY_ENCRYPTION_KEYS`` opens a stored answer (its key was removed, or
    the ciphertext changed): the stores list it in ``unavailable_errors``, so the request is
    answered 503 and never with anything but the stored answer."""


def keys_error(keys: Any) -> str | None:
    """What is wrong with a value of ``IDEMPOTENCY_ENCRYPTION_KEYS``, never quoting a key."""
    if not isinstance(keys, list | tuple):
        return f"it must be a list of keys, not a {type(keys).__name__}"
    for index, text in enumerate(keys):
        try:
            _decode_key(text)
        except ValueError as exc:
            return f"the key at index {index} {exc}"
    if keys:
        try:
            import cryptography  # noqa: F401
        except ImportError:
            return "cryptography is not installed"
    return None


def _decode_key(text: Any) -> bytes:
    if not isinstance(text, str):
        raise ValueError(f"is a {type(text).__name__}, not a string")
    try:
        raw = base64.b64decode(text.encode("ascii"), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("is not base64") from None
    if len(raw) != _KEY_BYTES:
        raise ValueError(f"decodes to {len(raw)} bytes, not {_KEY_BYTES}")
    return raw


@lru_cache(maxsize=4)
def _ciphers(keys: tuple[str, ...]) -> tuple[tuple[bytes, Any], ...]:
    """(key id, AESGCM) of each key, the encrypting one first."""
    if not keys:
        return ()
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raws = [_decode_key(text) for text in keys]
    return tuple((hashlib.sha256(raw).digest()[:_KEY_ID_BYTES], AESGCM(raw)) for raw in raws)


def _bound_to(scope: str, key: str, status: int) -> bytes:
    return json.dumps([scope, key, status]).encode()


def seal(scope: str, key: str, response: StoredResponse) -> StoredResponse:
    """``response`` as a store keeps it: its headers and body encrypted when keys are set."""
    ciphers = _ciphers(tuple(api_settings.IDEMPOTENCY_ENCRYPTION_KEYS))
    if not ciphers:
        return response
    key_id, cipher = ciphers[0]
    nonce = os.urandom(_NONCE_BYTES)
    # JSON escapes newlines: the first one ends the headers.
    plaintext = json.dumps(response.headers).encode() + b"\n" + response.body
    sealed = cipher.encrypt(nonce, plaintext, _bound_to(scope, key, response.status))
    return StoredResponse(response.status, {ENCRYPTED: ALGORITHM}, key_id + nonce + sealed)


def unseal(scope: str, key: str, stored: StoredResponse) -> StoredResponse:
    """The answer a store kept as :func:`seal` made it; one stored in clear as it is."""
    if ENCRYPTED not in stored.headers:
        return stored
    key_id, nonce = stored.body[:_KEY_ID_BYTES], stored.body[_KEY_ID_BYTES : _KEY_ID_BYTES + _NONCE_BYTES]
    for candidate_id, cipher in _ciphers(tuple(api_settings.IDEMPOTENCY_ENCRYPTION_KEYS)):
        if candidate_id != key_id:
            continue
        from cryptography.exceptions import InvalidTag

        try:
            plaintext = cipher.decrypt(
                nonce, stored.body[_KEY_ID_BYTES + _NONCE_BYTES :], _bound_to(scope, key, stored.status)
            )
        except InvalidTag:
            break
        headers, _, body = plaintext.partition(b"\n")
        return StoredResponse(stored.status, json.loads(headers), body)
    # Logged as the store's unavailability (503): the operator restores the key that wrote it.
    raise StoredAnswerUnreadable(
        "a stored answer cannot be decrypted: the key that encrypted it is not in "
        "IDEMPOTENCY_ENCRYPTION_KEYS, or the ciphertext was altered"
    )


def content_shown(headers: dict[str, Any] | None) -> str:
    """What ``idempotency_inspect`` tells of a stored answer (``None``: none yet): never its content."""
    if headers is None:
        return "-"
    return f"encrypted ({headers[ENCRYPTED]})" if ENCRYPTED in headers else "stored in clear"
