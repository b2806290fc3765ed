"""What every part of the package shares about a request and a response: header names, the
state kept on a request, middleware that runs inline in sync and async stacks, the response's
language and the project's routes. This part imports no other part of the package but ``conf``."""

__all__: list[str] = []
