-- The club hub's acknowledgements (companion/club): the highest event id the hub has stored, per
-- broker and table name, so that after any outage (broker down, the table restarted) the table
-- publishes its log from there. The log itself is the queue; this is only its read mark.
CREATE TABLE club_acks (
    club  TEXT PRIMARY KEY,            -- "<broker URL> <table id>"
    acked INTEGER NOT NULL,            -- highest event id the hub acknowledged
    at    TEXT NOT NULL                -- UTC, ISO 8601, when it was heard
);
