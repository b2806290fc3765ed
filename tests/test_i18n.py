"""Problems speak the client's language: English by default, German with ``Accept-Language: de``.

Only ``title``, ``detail`` and the ``errors`` details change: ``type``, ``code``s, parameter
names and pointers are the same in every language.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from gettext import GNUTranslations
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core import checks as django_checks
from django.test import AsyncClient, Client, RequestFactory
from django.utils import translation

import django_api_conventions
from django_api_conventions.check_messages import MESSAGES, message
from django_api_conventions.http.languages import honour_refused_languages
from django_api_conventions.problems import problem_types
from django_api_conventions.problems.built_in import BUILT_IN
from testproject.billing.models import Customer, Invoice

LOCALE = Path(django_api_conventions.__file__).resolve().parent / "locale"
CATALOGUES = sorted(LOCALE.glob("*/LC_MESSAGES/django.po"))
GERMAN = LOCALE / "de" / "LC_MESSAGES" / "django.po"

pytestmark = pytest.mark.django_db


def call(method: str, path: str, language: str | None, body: Any = None, **headers: str) -> Any:
    if language is not None:
        headers["Accept-Language"] = language
    client = Client(headers={"X-Client-ID": "i18n", **headers})
    data = json.dumps(body) if body is not None else ""
    return client.generic(method, path, data, content_type="application/json")


def both(method: str, path: str, body: Any = None, **headers: str) -> tuple[Any, Any]:
    return call(method, path, None, body, **headers), call(method, path, "de", body, **headers)


def assert_same_contract(english: Any, german: Any, status: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Same status, type, codes, parameters, pointers and headers; title and detail translated."""
    assert english.status_code == german.status_code == status
    assert english["Content-Language"] == "en" and german["Content-Language"] == "de"
    assert "Accept-Language" in german["Vary"]
    en, de = english.json(), german.json()
    assert en["type"] == de["type"] and en["status"] == de["status"]
    assert en["title"] != de["title"] and en["detail"] != de["detail"]
    strip = [{k: v for k, v in item.items() if k != "detail"} for item in en.get("errors", [])]
    assert strip == [{k: v for k, v in item.items() if k != "detail"} for item in de.get("errors", [])]
    for en_item, de_item in zip(en.get("errors", []), de.get("errors", []), strict=True):
        assert en_item["detail"] != de_item["detail"]
    extensions = set(en) - {"title", "detail", "errors", "instance", "trace_id"}
    assert {name: en[name] for name in extensions} == {name: de[name] for name in extensions}
    return en, de


def test_drf_validation_error_422() -> None:
    english, german = both("POST", "/v2/users", {"email": "not an email", "name": ""})
    _, de = assert_same_contract(english, german, 422)
    assert de["title"] == "Validierung fehlgeschlagen"
    assert de["detail"] == "Die Anfrage verstößt gegen die Regeln der Ressource."
    # DRF's own messages come from DRF's German catalogue.
    assert {item["pointer"] for item in de["errors"]} == {"/email", "/name"}
    assert "Dieses Feld darf nicht leer sein." in [item["detail"] for item in de["errors"]]


def test_unknown_query_parameter_400() -> None:
    english, german = both("GET", "/v2/users?colour=red")
    _, de = assert_same_contract(english, german, 400)
    assert de["title"] == "Ungültige Query-Parameter"
    assert de["detail"] == "Ungültige Query-Parameter: colour."
    assert de["errors"][0]["parameter"] == "colour" and de["errors"][0]["code"] == "unknown"
    assert de["errors"][0]["detail"].startswith("Unbekannter Parameter. Akzeptiert: ")


def test_not_found_from_routing_404() -> None:
    english, german = both("GET", "/v2/no-such-thing")
    _, de = assert_same_contract(english, german, 404)
    assert de["title"] == "Nicht gefunden"
    assert de["detail"] == "Keine Ressource passt zu GET /v2/no-such-thing."


def test_method_not_allowed_405() -> None:
    english, german = both("PUT", "/v2/users", {})
    _, de = assert_same_contract(english, german, 405)
    assert de["title"] == "Methode nicht erlaubt"
    assert english["Allow"] == german["Allow"]


def test_request_too_large_413_before_any_view(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    english, german = both("POST", "/v2/users", {"email": "a@example.com", "name": "A long enough name"})
    _, de = assert_same_contract(english, german, 413)
    assert de["detail"] == "Der Anfragebody überschreitet die Grenze von 10 Bytes."


def test_maintenance_503(settings: Any) -> None:
    settings.API_CONVENTIONS = {**settings.API_CONVENTIONS, "MAINTENANCE_MODE": True}
    english, german = both("GET", "/v2/users")
    _, de = assert_same_contract(english, german, 503)
    assert de["title"] == "Dienst nicht verfügbar"
    assert de["detail"] == "Der Dienst ist wegen Wartungsarbeiten nicht verfügbar; versuchen Sie es später erneut."
    assert english["Retry-After"] == german["Retry-After"]


def test_retired_version_410() -> None:
    english, german = both("GET", "/v0/users")
    en, de = assert_same_contract(english, german, 410)
    assert de["title"] == "API-Version abgeschaltet"
    assert de["detail"].startswith("Die API-Version v0 wurde am 2026-01-01 abgeschaltet; siehe die Migrationsanleitung")
    assert de["version"] == "v0" and de["migration_guide"] == en["migration_guide"]


@pytest.mark.django_db(transaction=True)
def test_idempotency_key_reused_422() -> None:
    customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    invoice = Invoice.objects.create(user=customer, amount_due=10_000, currency="eur")
    path, key = f"/v2/invoices/{invoice.pk}/payments", uuid.uuid4().hex
    assert call("POST", path, None, {"amount": 100, "currency": "eur"}, **{"Idempotency-Key": key}).status_code == 201
    english, german = both("POST", path, {"amount": 101, "currency": "eur"}, **{"Idempotency-Key": key})
    _, de = assert_same_contract(english, german, 422)
    assert de["title"] == "Idempotency-Key mit einer anderen Anfrage wiederverwendet"
    assert de["detail"] == (
        "Dieser Idempotency-Key wurde zuerst mit einer anderen Methode, einem anderen Pfad, einer anderen Query "
        "oder einem anderen Body verwendet."
    )


def test_english_by_default() -> None:
    response = call("GET", "/v2/users?colour=red", None)
    assert response["Content-Language"] == "en"
    assert response.json()["title"] == "Invalid query parameters"
    assert response.json()["detail"] == "Invalid query parameters: colour."


def test_a_language_not_shipped_falls_back_to_english() -> None:
    response = call("GET", "/v2/no-such-thing", "ja")
    assert response["Content-Language"] == "en" and response.json()["title"] == "Not found"


def test_problem_type_pages_follow_the_language() -> None:
    page = Client().get("/problems/not-found", headers={"Accept": "application/json", "Accept-Language": "de"})
    assert page.json()["title"] == "Nicht gefunden"
    assert page.json()["description"].startswith("Unter dieser URL existiert keine Ressource")


# The catalogue: complete, not fuzzy, placeholders kept, and the committed .mo compiled from it.


def read_po(path: Path) -> list[tuple[str, str, bool]]:
    """(msgid, msgstr, fuzzy) of each entry of a .po file, the header included (msgid "")."""
    entries, fuzzy, current, field = [], False, {"msgid": [], "msgstr": []}, None

    def flush() -> None:
        if field is not None:
            entries.append(("".join(current["msgid"]), "".join(current["msgstr"]), fuzzy))

    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip():
            flush()
            fuzzy, current, field = False, {"msgid": [], "msgstr": []}, None
        elif line.startswith("#,"):
            fuzzy = fuzzy or "fuzzy" in line
        elif line.startswith(("msgid ", "msgstr ")):
            field, _, text = line.partition(" ")
            current[field].append(ast.literal_eval(text))
        elif line.startswith('"'):
            assert field is not None, line
            current[field].append(ast.literal_eval(line))
    return entries


def test_a_german_catalogue_is_shipped() -> None:
    assert GERMAN in CATALOGUES
    assert GERMAN.with_suffix(".mo").is_file()


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda path: path.parts[-3])
def test_every_message_is_translated_and_not_fuzzy(po: Path) -> None:
    entries = read_po(po)
    assert len(entries) > 100
    assert [msgid for msgid, msgstr, _ in entries if not msgstr] == []
    assert [msgid for msgid, _, fuzzy in entries if fuzzy] == []


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda path: path.parts[-3])
def test_translations_keep_their_placeholders(po: Path) -> None:
    placeholder = re.compile(r"(?<!\{)\{[a-z_]*(?:![rs])?\}(?!\})|%\([a-z_]+\)[sd]")
    for msgid, msgstr, _ in read_po(po)[1:]:
        assert sorted(placeholder.findall(msgid)) == sorted(placeholder.findall(msgstr)), msgid


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda path: path.parts[-3])
def test_the_compiled_catalogue_is_up_to_date(po: Path) -> None:
    # Python's own reader of .mo files: no msgfmt needed where the tests run.
    with po.with_suffix(".mo").open("rb") as mo:
        compiled = GNUTranslations(mo)._catalog  # type: ignore[attr-defined]
    source = {msgid: msgstr for msgid, msgstr, _ in read_po(po) if msgid}
    assert {key: value for key, value in compiled.items() if key} == source, (
        f"{po.with_suffix('.mo')} is stale: run `django-admin compilemessages` in django_api_conventions/"
    )


def test_every_problem_type_has_a_german_title_and_description() -> None:
    built_in = {t.slug for t in BUILT_IN}
    with translation.override("de"):
        for problem_type in (t for t in problem_types if t.slug in built_in):
            fields = [*problem_type.members, *problem_type.headers]
            texts = [
                problem_type.title,
                problem_type.description,
                problem_type.fix,
                problem_type.example_detail,
                *(field.description for field in fields),
            ]
            with translation.override("en"):
                english = [str(text) for text in texts]
            for text, original in zip(texts, english, strict=True):
                assert original and str(text) != original, (problem_type.slug, original)


def test_every_check_message_and_hint_has_a_german_translation() -> None:
    for (_check_id, name), (text, hint) in MESSAGES.items():
        for template in (text, hint):
            if template == "{suggestion}":  # the hint is the suggestion itself
                continue
            with translation.override("en"):
                english = str(template)
            with translation.override("de"):
                assert str(template) != english, name


def test_check_messages_format_in_german() -> None:
    with translation.override("de"):
        warning = message("middleware_out_of_order", middleware="A", other="B")
    assert isinstance(warning, django_checks.Warning)
    assert warning.msg == "A muss in MIDDLEWARE vor B stehen."


def test_locale_middleware_after_the_packages_middleware_is_a_warning(settings: Any) -> None:
    from django_api_conventions.checks.setup import check_middleware

    locale = "django.middleware.locale.LocaleMiddleware"
    others = [name for name in settings.MIDDLEWARE if name != locale]
    assert [m.id for m in check_middleware()] == []
    after = others.index("django_api_conventions.middleware.TraceIdMiddleware") + 1
    settings.MIDDLEWARE = [*others[:after], locale, *others[after:]]
    warnings = check_middleware()
    assert [m.id for m in warnings] == ["django_api_conventions.W003"]
    assert "TraceIdMiddleware" in warnings[0].msg
    settings.MIDDLEWARE = others  # no LocaleMiddleware: nothing to say
    assert [m.id for m in check_middleware()] == []


# The example's own messages: translated like the package's.

EXAMPLE_GERMAN = Path(__file__).resolve().parent.parent / "testproject" / "billing" / "locale" / "de" / "LC_MESSAGES"


def _invoice(**fields: Any) -> Invoice:
    customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    return Invoice.objects.create(user=customer, amount_due=10_000, currency="eur", **fields)


def _error_details(response: Any) -> dict[str, str]:
    return {item["pointer"]: item["detail"] for item in response.json()["errors"]}


def test_the_examples_uniqueness_message_is_german() -> None:
    Customer.objects.create(email="taken@example.com", name="First")
    english, german = both("POST", "/v2/users", {"email": "TAKEN@example.com", "name": "Second"})
    assert_same_contract(english, german, 422)
    assert _error_details(english) == {"/email": "A user with this email already exists."}
    assert _error_details(german) == {"/email": "Ein Benutzer mit dieser E-Mail-Adresse existiert bereits."}


def test_the_examples_currency_messages_are_german() -> None:
    customer = Customer.objects.create(email=f"{uuid.uuid4().hex}@example.com", name="Payer")
    body = {"user_id": customer.pk, "amount_due": 100, "currency": "EUR"}
    english, german = both("POST", "/v2/invoices", body)
    assert_same_contract(english, german, 422)
    assert _error_details(english) == {"/currency": "Use a lower-case ISO 4217 code such as 'eur'."}
    assert _error_details(german) == {"/currency": "Geben Sie einen ISO-4217-Code in Kleinbuchstaben an, etwa 'eur'."}


@pytest.mark.django_db(transaction=True)
def test_the_examples_payment_messages_are_german() -> None:
    path = f"/v2/invoices/{_invoice().pk}/payments"
    english, german = (
        call("POST", path, language, {"amount": 100, "currency": "usd"}, **{"Idempotency-Key": uuid.uuid4().hex})
        for language in (None, "de")
    )
    assert_same_contract(english, german, 422)
    assert _error_details(english) == {"/currency": "The invoice is billed in 'eur'."}
    assert _error_details(german) == {"/currency": "Die Rechnung wird in 'eur' abgerechnet."}

    path = f"/v2/invoices/{_invoice(status=Invoice.Status.PAID).pk}/payments"
    english, german = (
        call("POST", path, language, {"amount": 100, "currency": "eur"}, **{"Idempotency-Key": uuid.uuid4().hex})
        for language in (None, "de")
    )
    assert_same_contract(english, german, 422)
    assert _error_details(english) == {"": "The invoice is paid; it takes no payment."}
    assert _error_details(german) == {"": "Die Rechnung hat den Status 'paid' und nimmt keine Zahlung an."}


def test_the_examples_catalogue_is_complete_and_compiled() -> None:
    po = EXAMPLE_GERMAN / "django.po"
    entries = read_po(po)
    assert [msgid for msgid, msgstr, _ in entries if not msgstr] == []
    assert [msgid for msgid, _, fuzzy in entries if fuzzy] == []
    with po.with_suffix(".mo").open("rb") as mo:
        compiled = GNUTranslations(mo)._catalog  # type: ignore[attr-defined]
    assert {key: value for key, value in compiled.items() if key} == {
        msgid: msgstr for msgid, msgstr, _ in entries if msgid
    }, f"{po.with_suffix('.mo')} is stale: run `django-admin compilemessages` in testproject/billing/"


# A language the client refuses (q=0) is never chosen.


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("de;q=0", "en"),
        ("de;q=0, en;q=0.5", "en"),
        ("DE;Q=0", "en"),
        ("de;q=0.000", "en"),
        ("de;q=0, *", "en"),
        ("en;q=0, de;q=0.3", "de"),
        ("en;q=0", "de"),  # English refused, German not: German rather than what was refused
        ("de;q=0, en;q=0", "en"),  # nothing acceptable: the default
        ("de;q=0.1", "de"),
        ("de-ch;q=0, de", "de"),  # only Swiss German is refused
    ],
)
def test_a_refused_language_is_never_chosen(accept: str, expected: str) -> None:
    response = call("GET", "/v2/users?colour=red", accept)
    assert response.status_code == 400
    assert response["Content-Language"] == expected
    assert response.json()["title"] == {"en": "Invalid query parameters", "de": "Ungültige Query-Parameter"}[expected]


def test_a_refused_language_is_not_chosen_for_the_validation_messages() -> None:
    response = call("POST", "/v2/users", "de;q=0", {"email": "not an email", "name": ""})
    assert response.status_code == 422 and response["Content-Language"] == "en"
    assert "This field may not be blank." in _error_details(response).values()


def test_a_refused_language_is_not_chosen_before_any_view() -> None:
    # The 410 of a retired version is answered by the package's middleware, before any view.
    response = call("GET", "/v0/users", "de;q=0")
    assert response.status_code == 410 and response["Content-Language"] == "en"
    assert response.json()["title"] == "API version retired"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["/v0/users", "/v2/users?colour=red", "/v2/no-such-thing"])
def test_a_refused_language_is_not_chosen_under_asgi(path: str) -> None:
    response = async_to_sync(AsyncClient().get)(path, headers={"Accept-Language": "de;q=0, fr"})
    assert response.status_code in (400, 404, 410) and response["Content-Language"] == "en"
    english = call("GET", path, None).json()["title"]
    assert response.json()["title"] == english


@pytest.mark.django_db(transaction=True)
def test_an_async_view_replays_the_stored_language() -> None:
    path, key = f"/v2/invoices/{_invoice().pk}/async-payments", uuid.uuid4().hex
    body, headers = json.dumps({"amount": 100, "currency": "usd"}), {"Idempotency-Key": key, "X-Client-ID": "i18n"}
    post = async_to_sync(AsyncClient().post)
    first = post(path, body, content_type="application/json", headers={**headers, "Accept-Language": "de"})
    assert first.status_code == 422 and first["Content-Language"] == "de"
    retry = post(path, body, content_type="application/json", headers={**headers, "Accept-Language": "en"})
    assert retry["Idempotent-Replayed"] == "true" and retry.content == first.content
    assert retry["Content-Language"] == "de"


def test_a_refused_language_cookie_is_not_chosen(settings: Any) -> None:
    client = Client(headers={"X-Client-ID": "i18n", "Accept-Language": "de;q=0"})
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    response = client.get("/v2/users?colour=red")
    assert response["Content-Language"] == "en" and response.json()["title"] == "Invalid query parameters"


def test_a_language_prefix_in_the_url_is_kept() -> None:
    request = RequestFactory().get("/de/v2/users", headers={"Accept-Language": "de;q=0"})
    request.LANGUAGE_CODE = "de"
    translation.activate("de")
    honour_refused_languages(request)
    assert translation.get_language() == "de"
    request = RequestFactory().get("/v2/users", headers={"Accept-Language": "de;q=0"})
    request.LANGUAGE_CODE = "de"
    honour_refused_languages(request)
    assert translation.get_language() == "en" and request.LANGUAGE_CODE == "en"


def test_without_locale_middleware_the_header_is_not_read() -> None:
    # No LocaleMiddleware (no request.LANGUAGE_CODE): LANGUAGE_CODE for everyone, as before.
    request = RequestFactory().get("/v2/users", headers={"Accept-Language": "en;q=0"})
    translation.activate("en")
    honour_refused_languages(request)
    assert translation.get_language() == "en"


def test_the_cookie_still_wins_over_the_header() -> None:
    client = Client(headers={"X-Client-ID": "i18n", "Accept-Language": "en"})
    client.cookies["django_language"] = "de"
    assert client.get("/v2/users?colour=red")["Content-Language"] == "de"


# A replay is the stored answer: its body in the language it was written in, and says so.


@pytest.mark.django_db(transaction=True)
def test_a_replay_keeps_the_stored_language() -> None:
    path, key = f"/v2/invoices/{_invoice().pk}/payments", uuid.uuid4().hex
    body = {"amount": 100, "currency": "usd"}
    first = call("POST", path, "de", body, **{"Idempotency-Key": key})
    assert first.status_code == 422 and first["Content-Language"] == "de"
    for language in ("en", None, "de;q=0"):
        retry = call("POST", path, language, body, **{"Idempotency-Key": key})
        assert retry["Idempotent-Replayed"] == "true"
        assert retry.content == first.content
        assert retry["Content-Language"] == "de", language


@pytest.mark.django_db(transaction=True)
def test_a_replay_of_a_success_keeps_the_stored_language() -> None:
    path, key = f"/v2/invoices/{_invoice().pk}/payments", uuid.uuid4().hex
    body = {"amount": 100, "currency": "eur"}
    first = call("POST", path, "de", body, **{"Idempotency-Key": key})
    assert first.status_code == 201 and first["Content-Language"] == "de"
    retry = call("POST", path, "en", body, **{"Idempotency-Key": key})
    assert retry["Idempotent-Replayed"] == "true" and retry.content == first.content
    assert retry["Content-Language"] == "de"
