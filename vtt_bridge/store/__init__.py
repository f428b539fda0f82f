"""The SQLite log: each acknowledged ruling, the snapshots, recovery at start and the packed values.

Imports the engine and the layers below it; never the server, the web pages or the command line.
"""
