"""Flask application factory."""

from __future__ import annotations

from flask import Flask

from companion.services import Services


def create_app(services: Services) -> Flask:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    app.extensions["companion"] = services
    from companion.web.api import api

    app.register_blueprint(api)
    from companion.web.camera import camera_view; app.register_blueprint(camera_view)  # noqa: E702
    from companion.web.health import health; app.register_blueprint(health)  # noqa: E702
    return app
