"""Peak memory of a 10 MB multipart upload, with and without an ``Idempotency-Key``.

``python -m benchmarks.upload_memory [--megabytes 10]``: one DRF view (``IdempotencyMixin``,
``MultiPartParser``, the database store on an in-memory SQLite) that reads the whole uploaded
file, as an image or document view does. Each request runs through Django's handler under
``tracemalloc``; the request's body is built before tracing starts, so the figure is what Django,
DRF, the package and the view allocate while they answer: with the key, the fingerprint's part.
Django spools an upload over ``FILE_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MB) to a temporary file, so
without a key the peak is a few of its 64 KB chunks.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import tracemalloc
import uuid
from typing import Any

from .in_memory import configure

MIB = 1024 * 1024


def _upload_view() -> Any:
    from rest_framework.parsers import MultiPartParser
    from rest_framework.request import Request
    from rest_framework.response import Response
    from rest_framework.views import APIView

    from django_api_conventions.idempotency import IdempotencyMixin

    class UploadView(IdempotencyMixin, APIView):
        authentication_classes: list[Any] = []
        permission_classes: list[Any] = []
        parser_classes = [MultiPartParser]

        def post(self, request: Request) -> Response:
            upload = request.data["file"]
            digest = hashlib.sha256()
            for chunk in upload.chunks():  # the whole file, as a view that stores it reads it
                digest.update(chunk)
            return Response({"size": upload.size, "sha256": digest.hexdigest()}, status=201)

    return UploadView.as_view()


def urlpatterns_() -> list[Any]:
    from django.urls import path

    return [path("upload", _upload_view())]


def peak_bytes(body_size: int, *, keyed: bool) -> tuple[int, int]:
    """The traced peak of one upload of ``body_size`` bytes, and the status it got."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import RequestFactory
    from django.test.client import ClientHandler

    upload = SimpleUploadedFile("scan.bin", b"\x89" * body_size, content_type="application/octet-stream")
    headers = {"Idempotency-Key": str(uuid.uuid4())} if keyed else {}
    environ = RequestFactory().post("/upload", {"file": upload}, headers=headers).environ
    del upload
    handler = ClientHandler()
    gc.collect()
    tracemalloc.start()
    try:
        response = handler(environ)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, response.status_code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    options = parser.parse_args(argv)
    configure(__name__)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    size = int(options.megabytes * 1_000_000)
    peak_bytes(size, keyed=True)  # warm: imports, the first queries
    for keyed in (False, True):
        peak, status = peak_bytes(size, keyed=keyed)
        label = "with a key" if keyed else "without a key"
        print(f"{options.megabytes:g} MB upload {label}: peak {peak / MIB:.2f} MiB traced (status {status})")
    return 0


def __getattr__(name: str) -> Any:  # the URLconf's patterns, built once Django is set up
    if name == "urlpatterns":
        return urlpatterns_()
    raise AttributeError(name)


if __name__ == "__main__":
    raise SystemExit(main())
