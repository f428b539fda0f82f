"""The websocket transport: one connection's life from the upgrade to the close (the endpoint, hello
and auth; dispatch; the commit pipeline; the reply encoding; a sync in parts; work in worker
threads; the outbox and its send queues, the limits, the Host check, the frame cap, the shell's
state object and its token file).

Imports the store, the engine and the layers below it; never the web pages or the command line.
"""
