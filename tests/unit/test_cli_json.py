"""JSON printed by the commands is UTF-8 that any JSON reader parses, whatever the file names."""

import io
import json
import sys

from companion.cli.common import emit_json


def test_a_file_name_that_is_not_utf8_is_printed_as_valid_json(monkeypatch):
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape"))
    emit_json([{"image": "odd/bad\udcffname.jpg"}, {"image": "麻雀 ü.jpg"}])  # as Python keeps byte 0xff
    sys.stdout.flush()
    first, second = json.loads(out.getvalue().decode("utf-8"))  # strict UTF-8
    assert first["image"] == "odd/bad\ufffdname.jpg" and second["image"] == "麻雀 ü.jpg"
