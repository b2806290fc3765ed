"""A fake payment gateway: it only takes time (``PAYMENT_GATEWAY_DELAY_MS``)."""

import asyncio
import time

from django.conf import settings


def charge(amount: int, currency: str) -> str:
    delay_ms = settings.PAYMENT_GATEWAY_DELAY_MS
    if delay_ms:
        time.sleep(delay_ms / 1000)
    return "succeeded"


async def acharge(amount: int, currency: str) -> str:
    """:func:`charge` for async views: the gateway's latency is awaited, not slept through."""
    delay_ms = settings.PAYMENT_GATEWAY_DELAY_MS
    if delay_ms:
        await asyncio.sleep(delay_ms / 1000)
    return "succeeded"
