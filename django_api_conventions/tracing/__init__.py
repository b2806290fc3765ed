"""Trace ids: one per request, honoured from the caller when valid, in every log record."""

from .trace_ids import TraceIdFilter, TraceIdMiddleware, assign_trace_id, current_trace_id, log_trace_id

__all__ = ["TraceIdFilter", "TraceIdMiddleware", "assign_trace_id", "current_trace_id", "log_trace_id"]
