from django.apps import AppConfig, apps
from django.core.signals import request_finished

from .tracing.trace_ids import forget_trace_id, read_span_trace_ids

__all__ = ["APIConventionsConfig"]


class APIConventionsConfig(AppConfig):
    name = "django_api_conventions"
    verbose_name = "API conventions"
    # Pinned so that a project's DEFAULT_AUTO_FIELD never asks for a migration of ours.
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Importing a part's checks registers them.
        from . import checks, middleware  # noqa: F401
        from .idempotency import checks as idempotency_checks  # noqa: F401
        from .pagination import checks as pagination_checks  # noqa: F401
        from .problems import checks as problem_checks  # noqa: F401
        from .versioning import checks as versioning_checks  # noqa: F401

        if apps.is_installed("drf_spectacular"):
            from .contrib import spectacular  # noqa: F401 -- registers the schema extensions and checks
        request_finished.connect(forget_trace_id, dispatch_uid="api_conventions_forget_trace_id")
        from .idempotency.transactions import settle_unfinished  # runs the settles of finished WSGI requests

        request_finished.connect(settle_unfinished, dispatch_uid="api_conventions_settle_idempotency_keys")
        _keep_deprecations_on_replay()
        _connect_opentelemetry()


def _keep_deprecations_on_replay() -> None:
    # The two parts never import each other: the app wires the versioning's notes into the
    # idempotency's stored responses, so that a replay announces the deprecations it used.
    from .idempotency.request_state import ReplayedRequestState, register_replayed_state
    from .versioning.usage import dump_noted_since, note_dumped, noted_count

    register_replayed_state(ReplayedRequestState("deprecations", noted_count, dump_noted_since, note_dumped))


def _connect_opentelemetry() -> None:
    # With opentelemetry-api installed, a request's trace id is its span's, and the idempotency
    # signals feed spans and a counter. Found out here, at start-up, never on a request: two
    # request threads importing an optional module at once can see it half imported.
    try:
        from .contrib.opentelemetry.idempotency import connect
        from .contrib.opentelemetry.spans import current_span_trace_id
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "opentelemetry":
            raise
        read_span_trace_ids(None)
        return
    read_span_trace_ids(current_span_trace_id)
    connect()
