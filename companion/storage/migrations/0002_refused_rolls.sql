-- Rolls the game refused, by their idempotency key: a dice box resends a roll until it hears an
-- ACK, also after the companion restarts, and a refused roll must not be counted later (say, in
-- the next game) nor reported twice.
CREATE TABLE refused_rolls (
    key    TEXT PRIMARY KEY,
    at     TEXT NOT NULL,              -- UTC, ISO 8601
    reason TEXT NOT NULL
);
