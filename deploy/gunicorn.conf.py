"""gunicorn behind nginx (deploy/nginx/api.conf.template): ``gunicorn -c deploy/gunicorn.conf.py``.

nginx bounds the request line and the headers (``large_client_header_buffers 4 8k``) and
answers with a problem what it refuses. gunicorn must accept everything nginx passes on:
anything it refused itself would reach the client as gunicorn's HTML 400, 414 or 431 page,
without a trace id. Bind address and workers go on the command line (``-b``, ``-w``).
"""

# gunicorn refuses a request line over 4,094 bytes by default; nginx passes up to 8,190.
limit_request_line = 0  # no limit of its own: nginx's is the one
# nginx passes as many header lines as fit in 32 KiB (thousands); gunicorn's default is 100.
limit_request_fields = 32768  # gunicorn's maximum
# nginx passes a header line of up to 8,190 bytes; gunicorn counts its CR LF too.
limit_request_field_size = 16384
