-- The game log: one row per event, appended and never changed.
CREATE TABLE events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    game    INTEGER NOT NULL,          -- id of the game's game_started event
    at      TEXT    NOT NULL,          -- UTC, ISO 8601
    type    TEXT    NOT NULL,
    payload TEXT    NOT NULL,          -- the event as JSON
    key     TEXT    UNIQUE             -- optional idempotency key, e.g. a dice box's boot id and sequence number
);
CREATE INDEX events_game ON events (game, id);
