"""``manage.py api_compat``: fail CI on a breaking change inside a version of the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ... import Finding, compare_openapi
from ...baselines import SchemaUnavailable, baseline_path, build_schema, dump_schema, versions_to_check

#: Where the baselines are without ``--baseline-dir``: ``openapi/`` of the current directory.
DEFAULT_BASELINE_DIR = "openapi"


class Command(BaseCommand):
    help = (
        "Compare the OpenAPI schema of every served version with its committed baseline "
        "(<baseline dir>/<version>.json) and exit 1 on a breaking change: a path, method, field, "
        "enum value or success status removed, a type changed, a request field or parameter made required. "
        "Additive changes pass. --update writes the baselines."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--baseline-dir",
            dest="directory",
            type=Path,
            default=Path(DEFAULT_BASELINE_DIR),
            help=f"Directory of the baselines; a relative path is relative to the current "
            f"directory (default: {DEFAULT_BASELINE_DIR}).",
        )
        parser.add_argument(
            "--update",
            action="store_true",
            help="Write the current schemas as the new baselines (after a reviewed change).",
        )
        parser.add_argument(
            "--api-version",
            action="append",
            dest="api_versions",
            metavar="VERSION",
            help="Check only this version (repeatable). Default: every version not retired.",
        )
        parser.add_argument(
            "--urlconf", help="Dotted path of the URLconf to build the schemas from (default: ROOT_URLCONF)."
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="Also exit 1 on compatible changes not yet recorded with --update, so the "
            "baselines stay current and a later removal of a new field is caught too.",
        )

    def handle(
        self,
        *args: Any,
        directory: Path | str,
        update: bool,
        api_versions: list[str] | None,
        urlconf: str | None,
        strict: bool,
        **options: Any,
    ) -> None:
        versions = self._versions(api_versions)
        failures: list[str] = []
        for version in versions:
            name = version or "the API"
            path = _relative(baseline_path(Path(directory), version))
            try:
                schema = build_schema(version, urlconf)
            except SchemaUnavailable as error:
                raise CommandError(str(error)) from error
            baseline = self._baseline(path, required=not update)
            try:
                findings = compare_openapi(baseline, schema) if baseline is not None else []
            except ValueError as error:
                raise CommandError(f"{name}: cannot compare with {path}: {error}") from error
            breaking = [f for f in findings if f.breaking]
            compatible = [f for f in findings if not f.breaking]
            if update:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(dump_schema(schema), encoding="utf-8")
                self.stdout.write(
                    f"{name}: wrote {path}"
                    + ("" if baseline is None else f" ({len(breaking)} breaking, {len(compatible)} compatible changes)")
                )
                self._list(breaking, compatible, show_compatible=options["verbosity"] >= 2)
                continue
            if breaking:
                self.stdout.write(self.style.ERROR(f"{name}: {len(breaking)} breaking change(s) against {path}:"))
                failures.append(name)
            elif compatible:
                self.stdout.write(
                    self.style.WARNING(
                        f"{name}: compatible with {path}; {len(compatible)} compatible change(s) not yet recorded "
                        "(record them with --update)" + ("" if options["verbosity"] >= 2 else ", -v 2 lists them")
                    )
                )
                if strict:
                    failures.append(name)
            else:
                self.stdout.write(self.style.SUCCESS(f"{name}: matches {path}"))
            self._list(breaking, compatible, show_compatible=strict or options["verbosity"] >= 2)
        if failures:
            raise CommandError(
                f"{'Breaking' if not strict else 'Unrecorded'} changes in {', '.join(failures)}. A breaking change "
                "belongs in a new version; undo it, or, if no client depends on it yet, accept it with "
                "`manage.py api_compat --update` and commit the baselines."
            )

    def _versions(self, wanted: list[str] | None) -> list[str | None]:
        served = versions_to_check()
        if not wanted:
            return served
        unknown = [name for name in wanted if name not in served]
        if unknown:
            allowed = ", ".join(str(name) for name in served if name) or "none: VERSIONS is empty"
            raise CommandError(f"Not a served version: {', '.join(unknown)}; served: {allowed}.")
        return list(wanted)

    @staticmethod
    def _baseline(path: Path, *, required: bool) -> dict[str, Any] | None:
        if not path.exists():
            if required:
                raise CommandError(
                    f"No baseline {path}. Write it with `manage.py api_compat --update`, review it and commit it "
                    "(or point --baseline-dir at the baselines)."
                )
            return None
        try:
            baseline = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise CommandError(f"Cannot read the baseline {path}: {error}") from error
        if not isinstance(baseline, dict):
            raise CommandError(f"The baseline {path} is not an OpenAPI document (a JSON object).")
        return baseline

    def _list(self, breaking: list[Finding], compatible: list[Finding], *, show_compatible: bool) -> None:
        for finding in breaking:
            self.stdout.write(f"  BREAKING {finding}")
        if show_compatible:
            for finding in compatible:
                self.stdout.write(f"  compatible {finding}")


def _relative(path: Path) -> Path:
    """The path as a person would type it from here, when it is below the current directory."""
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path
