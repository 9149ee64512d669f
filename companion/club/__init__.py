"""The club: tables publish their game logs to an MQTT broker, one hub gathers them (docs/club.md).

`protocol` (pure: topics and payloads), `publisher` (the table's adapter, store-and-forward
from its own SQLite log), `hub` (ingests every table idempotently into its own SQLite and folds
each table's game), `web` (the hub's projector page and API), `bench` (50 simulated tables).
"""
