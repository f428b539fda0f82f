"""The websocket transport: one connection's life from the upgrade to the close (the endpoint: the
Host and Origin checks, the frames, hello and auth; a ruling made, committed and its reply encoded;
queries answered; a sync in parts; the collector paused for work in worker threads and the memory
given back; the outbox and its send queues, the limits, the frame cap, the shell's state object and
its token file).

Imports the store, the engine and the layers below it; never the web pages or the command line.
"""
