#!/bin/sh
# Engine bug F (see README.md): a counter increment and a delete of the same row, folded together,
# leave a counter register whose value disagrees with its contributions. No changeset is involved.
# Run from an empty directory with `concord` and `sqlite3` on the PATH; the last check exits 1 today.
set -e
sqlite3 f.db "CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0)"
concord enable f.db --table c --merge c.n=counter
sqlite3 f.db "INSERT INTO c (id, n) VALUES ('a', 1)"
concord check f.db            # ok: the insert is folded
sqlite3 f.db "UPDATE c SET n = n + 1 WHERE id = 'a'; DELETE FROM c WHERE id = 'a';"
concord check f.db            # c 'a'.n: counter holds 2 but its contributions add up to 0
