-- The serial numbers a contest log hands out (POST /v1/contests/{id}/serials): the next one
-- not given to any station yet. Each station takes a block at a time, so that two stations
-- never send one number and a station whose link is down sends on from its block.
ALTER TABLE folders ADD COLUMN next_serial INTEGER NOT NULL DEFAULT 1;
