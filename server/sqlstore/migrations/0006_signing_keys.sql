-- Secrets the server signs with (sign-in states, the tokens of an
-- authorization code), one per name, made by the first process that needs
-- it and shared by every process on the store. Not portal data: neither
-- dumped, nor snapshot, nor reset.
CREATE TABLE signing_keys (
    name   TEXT PRIMARY KEY,
    secret TEXT NOT NULL
);
