"""Stands in for a missing opentelemetry-api on ``PYTHONPATH``: importing it fails, slowly.

The second it takes widens the window in which two request threads could race through the
import of an optional module, so that a lazy import on a request would show as a 500.
"""

import time

time.sleep(1)
raise ModuleNotFoundError("No module named 'opentelemetry'", name="opentelemetry")
