"""Errors the web layer answers with, and how they become responses.

An `/api/` request always gets JSON: ``{"error": {"code": "...", "message": "..."}}`` with the
status code that says what went wrong; a page request gets the error page. Nothing is
changed by a request that ends in an error (the table refuses before writing).
"""

from __future__ import annotations

import logging

import msgspec
from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException

from companion.errors import CompanionError, DiceError, GameRuleError, VariantError
from companion.storage import StorageError
from companion.web.i18n import error_message

log = logging.getLogger(__name__)


class WebError(CompanionError):
    """A request the dashboard refuses: an HTTP status, a short machine code and a message for people."""

    def __init__(self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


#: status and code for the errors the game raises (it has refused the event: nothing was written)
GAME_ERRORS: list[tuple[type[Exception], int, str]] = [
    (DiceError, 422, "bad_dice"),
    (VariantError, 422, "bad_variant"),
    (GameRuleError, 409, "refused"),
]


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None):
    if _wants_json():
        resp = jsonify({"error": {"code": code, "message": message}})
    else:
        resp = render_template("error.html", status=status, message=message)
        from flask import make_response
        resp = make_response(resp)
    resp.status_code = status
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def install(app: Flask) -> None:
    @app.errorhandler(WebError)
    def _web_error(e: WebError):
        return error_response(e.status, e.code, e.message, e.headers)

    @app.errorhandler(CompanionError)
    def _game_error(e: CompanionError):
        if isinstance(e, StorageError):  # the game log failed, not the request: the operator must hear of it
            log.error("%s %s: the game log failed: %s", request.method, request.path, e)
            return error_response(503, "storage", _("The game log cannot be written now (%(error)s); "
                                                    "nothing was recorded.", error=error_message(e)))
        for cls, status, code in GAME_ERRORS:
            if isinstance(e, cls):
                return error_response(status, code, error_message(e))  # in the phone's language
        return error_response(400, "bad_request", error_message(e))

    @app.errorhandler(msgspec.ValidationError)
    def _invalid(e: msgspec.ValidationError):
        return error_response(400, "bad_request", str(e))

    @app.errorhandler(HTTPException)
    def _http(e: HTTPException):
        code = {413: "too_large", 404: "not_found", 405: "method_not_allowed", 415: "unsupported_media_type"}.get(
            e.code or 500, "bad_request" if (e.code or 500) < 500 else "server_error")
        limit = request.max_content_length or 0
        message = e.description or e.name
        if e.code == 413:
            message = _("the request body is too large (at most %(kib)s KiB)", kib=limit // 1024)
        elif e.description == type(e).description:  # werkzeug's own English, not a reason given here
            message = {404: _("There is nothing at this address."),
                       405: _("This address does not take a %(method)s request.", method=request.method),
                       415: _("The request must be JSON (Content-Type: application/json).")}.get(e.code, message)
        headers = dict(e.get_headers()) if e.code == 405 else {}
        headers.pop("Content-Type", None)
        return error_response(e.code or 500, code, message, headers)
