"""The dashboard and JSON API served to the phones at the table."""

from companion.web.app import create_app

__all__ = ["create_app"]
