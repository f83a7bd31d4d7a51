-- Which version of crates/store/functions/postgres.sql the database's functions are: from now
-- on a function changes there, whole, and the store runs the file when it is newer than this.
CREATE TABLE svc_functions (version BIGINT NOT NULL);
