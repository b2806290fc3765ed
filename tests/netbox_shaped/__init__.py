"""A small project shaped as NetBox's API, adopting the package per ``docs/adopting.md``.

:mod:`.project` is the project's own code, which adoption leaves as it is but for
``IdempotencyMixin`` on its base viewset and ``ProblemSchemaMixin`` before its schema class;
:mod:`.settings` holds its settings before and after adoption; :mod:`.urls_before` and
:mod:`.urls_after` serve it each way.
"""
