"""Flask application factory: the dashboard for the phones and the JSON API.

Blueprints: `views` (pages, pictures, PWA files), `api` (JSON), `push` (SSE). Another part of
the companion adds its blueprint with one `app.register_blueprint(...)` line below.
"""

from __future__ import annotations

from datetime import timedelta

from flask import Flask

from companion.services import Services


def create_app(services: Services) -> Flask:
    from companion.web import errors, guard, i18n, writes
    from companion.web.access import AttemptLimiter, CsrfTokens, Sessions, TableAccess
    from companion.web.api import api
    from companion.web.camera import camera_view
    from companion.web.corners import corners_view
    from companion.web.health import health
    from companion.web.push import PushBroker, push
    from companion.web.samples import samples_view
    from companion.web.scoring import allow_score_photo, scoring_view
    from companion.web.teach import allow_photo_upload, teach_view
    from companion.web.views import views

    server = services.settings.server
    access = TableAccess(server, services.settings.data_path)
    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=64 * 1024,
        SECRET_KEY=access.secret_key,
        SESSION_COOKIE_NAME="companion_session",
        SESSION_COOKIE_HTTPONLY=True,
        # Lax: a link from a chat or the QR scanner opens the page signed in; writes still need a token
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=server.secure_cookies,
        PERMANENT_SESSION_LIFETIME=timedelta(hours=server.session_hours),
        # the cookie is not renewed by use: a session ends `session_hours` after joining (`Sessions`)
        SESSION_REFRESH_EACH_REQUEST=False,
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False
    app.extensions["companion"] = services
    app.extensions["companion_web"] = guard.WebContext(
        services=services, access=access, csrf=CsrfTokens(),
        limiter=AttemptLimiter(server.join_attempts_per_minute),
        broker=PushBroker(services.hub, services.table, stream_slots(services.settings),
                          spectator_streams=server.spectator_streams),
        sessions=Sessions(services.settings.data_path, server.session_hours * 3600.0),
    )
    if server.trusted_proxies:
        # the client's own address (for the wrong-code limit, the Pi's own screen) and scheme, as the
        # trusted proxies saw them; without a proxy these headers are anyone's to fake, so unused
        from werkzeug.middleware.proxy_fix import ProxyFix
        n = server.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n)  # type: ignore[method-assign]
    i18n.install(app)
    app.before_request(allow_photo_upload)  # before the CSRF check reads the form
    app.before_request(allow_score_photo)  # likewise: a hand's photo to score
    guard.install(app)
    writes.install(app)  # write_fields() for the pages' forms (If-Match, Idempotency-Key)
    errors.install(app)
    app.register_blueprint(views)
    app.register_blueprint(api)
    app.register_blueprint(push)
    app.register_blueprint(camera_view)  # the live view (hardware/camera)
    app.register_blueprint(teach_view)  # "teach your set" from a phone (vision/tiles/teach.py)
    app.register_blueprint(corners_view)  # the table's corners set by hand (vision/corners.py)
    app.register_blueprint(samples_view)  # camera samples to download (vision/samples.py)
    app.register_blueprint(scoring_view)  # POST /api/score: a hand's score, from a photo too (scoring/)
    app.register_blueprint(health)  # /healthz (companion/health.py)
    return app


def stream_slots(settings) -> int:
    """Event streams for joined phones: the threads less those kept for ordinary requests, for the
    camera view and for spectators' streams (at least 1)."""
    from companion.web.push import RESERVED_THREADS

    s = settings.server
    camera = settings.camera.max_viewers + settings.camera.spectator_viewers
    return max(1, s.threads - RESERVED_THREADS - camera - s.spectator_streams)
