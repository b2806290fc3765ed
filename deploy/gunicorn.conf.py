"""gunicorn behind nginx (deploy/nginx/api.conf.template): ``gunicorn -c deploy/gunicorn.conf.py``.

nginx bounds the request line and the headers (``large_client_header_buffers 4 8k``) and
answers with a problem what it refuses. gunicorn must accept everything nginx passes on:
anything it refused itself would reach the client as gunicorn's HTML 400, 414 or 431 page,
without a trace id. Bind address and workers go on the command line (``-b``, ``-w``).
"""

import json
import uuid

import gunicorn.util

# gunicorn refuses a request line over 4,094 bytes by default; nginx passes up to 8,190.
limit_request_line = 0  # no limit of its own: nginx's is the one
# nginx passes as many header lines as fit in 32 KiB (thousands); gunicorn's default is 100.
limit_request_fields = 32768  # gunicorn's maximum
# nginx passes a header line of up to 8,190 bytes; gunicorn counts its CR LF too.
limit_request_field_size = 16384
# The scheme comes from the one header nginx sets, X-Forwarded-Proto. By default gunicorn also
# reads X-Forwarded-Ssl and X-Forwarded-Protocol, which a client can send, and refuses the
# request when they contradict each other (nginx drops them as well).
secure_scheme_headers = {"X-FORWARDED-PROTO": "https"}


# Some requests nginx passes on gunicorn still refuses before the application sees them: a
# header value with a control character other than tab (nginx refuses only NUL and a bare
# CR, and cannot inspect every header), a second Content-Type (nginx 1.22 keeps the first).
# gunicorn's answer would be an HTML page; this one is a problem, and its X-Accel-Redirect
# makes nginx answer its own 400 problem instead, with the trace id nginx logged and sent
# here. gunicorn's other refusals (414, 431, 501) cannot happen behind the recipe's nginx and
# keep the problem written here. Without nginx in front, the problem written here is the answer.
def _write_problem(sock, status_int, reason, mesg):
    trace_id = uuid.uuid4().hex
    body = json.dumps(
        {
            "type": "about:blank",
            "title": reason,
            "status": status_int,
            "detail": "The server could not parse the request." if status_int < 500 else "The server failed to answer.",
            "instance": f"urn:request:{trace_id}",
            "trace_id": trace_id,
        }
    ).encode()
    redirect = "X-Accel-Redirect: /_api_problem/400?refused=service\r\n" if status_int == 400 else ""
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        f"Content-Language: en\r\nX-Request-ID: {trace_id}\r\n{redirect}Content-Length: {len(body)}\r\n\r\n"
    )
    gunicorn.util.write_nonblock(sock, head.encode("latin-1") + body)


if not callable(getattr(gunicorn.util, "write_error", None)):
    raise RuntimeError("this gunicorn has no gunicorn.util.write_error: its refusals would be HTML pages")
gunicorn.util.write_error = _write_problem
