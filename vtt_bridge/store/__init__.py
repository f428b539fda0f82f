"""The SQLite log: each acknowledged ruling, the snapshots, recovery at start (log.py), a row's codec
(rows.py), the file layout and its migration (schema.py), the lock and the file checks (files.py).

Imports the engine and the layers below it; never the server, the web pages or the command line.
"""
